import { describe, expect, it } from 'vitest'
import { TraceFormatError } from '../../src/trace/errors'
import { decodeAnyValue, decodeKeyValues, normalizeId } from '../../src/trace/readers/otlp-values'

describe('OTLP AnyValue decoding', () => {
  it('decodes every AnyValue kind, including protobuf-JSON spellings', () => {
    expect(decodeAnyValue({ stringValue: 'a' }, '$')).toBe('a')
    expect(decodeAnyValue({ intValue: 7 }, '$')).toBe(7)
    expect(decodeAnyValue({ intValue: '7' }, '$')).toBe(7)
    expect(decodeAnyValue({ intValue: '9223372036854775807' }, '$')).toBe('9223372036854775807')
    expect(decodeAnyValue({ doubleValue: 0.5 }, '$')).toBe(0.5)
    expect(decodeAnyValue({ doubleValue: 'NaN' }, '$')).toBeNaN()
    expect(decodeAnyValue({ doubleValue: '-Infinity' }, '$')).toBe(-Infinity)
    expect(decodeAnyValue({ boolValue: true }, '$')).toBe(true)
    expect(decodeAnyValue({ bytesValue: 'AQID' }, '$')).toBe('AQID')
    expect(decodeAnyValue({ arrayValue: { values: [{ stringValue: 'x' }, { intValue: '2' }] } }, '$')).toEqual(['x', 2])
    expect(decodeAnyValue({ arrayValue: {} }, '$')).toEqual([])
    expect(
      decodeAnyValue(
        {
          kvlistValue: {
            values: [{ key: 'k', value: { kvlistValue: { values: [{ key: 'n', value: { boolValue: false } }] } } }],
          },
        },
        '$',
      ),
    ).toEqual({ k: { n: false } })
    expect(decodeAnyValue({}, '$')).toBeNull()
  })

  it('names the path of a bad value', () => {
    const err = (() => {
      try {
        decodeKeyValues(
          [{ key: 'a', value: { arrayValue: { values: [{ doubleValue: 'abc' }] } } }],
          '$.x.attributes',
          'f.json',
        )
      } catch (e) {
        return e as TraceFormatError
      }
    })()
    expect(err).toBeInstanceOf(TraceFormatError)
    expect(err!.jsonPath).toBe('$.x.attributes[0].value.arrayValue.values[0].doubleValue')
    expect(err!.message).toContain(
      'f.json at $.x.attributes[0].value.arrayValue.values[0].doubleValue: expected a number, found the string "abc"',
    )
  })

  it('builds a path given as a function only for an error, and builds the same path as the string', () => {
    let built = 0
    const path = () => {
      built++
      return '$.x.attributes'
    }
    expect(
      decodeKeyValues(
        [
          { key: 'a', value: { intValue: '7' } },
          { key: 'b', value: { arrayValue: { values: [{ stringValue: 'y' }] } } },
        ],
        path,
      ),
    ).toEqual({ a: 7, b: ['y'] })
    expect(built).toBe(0)
    const bad = [{ key: 'a', value: { arrayValue: { values: [{ doubleValue: 'abc' }] } } }]
    const message = (p: string | (() => string)) => {
      try {
        decodeKeyValues(bad, p, 'f.json')
      } catch (e) {
        return `${(e as TraceFormatError).jsonPath} ${(e as Error).message}`
      }
    }
    expect(message(path)).toBe(message('$.x.attributes'))
    expect(built).toBe(1)
  })

  it('normalizes hex and base64 ids to lowercase hex', () => {
    expect(normalizeId('5B8EFFF798038103D269B633813FC60C')).toBe('5b8efff798038103d269b633813fc60c')
    expect(normalizeId('EEE19B7EC3C1B174')).toBe('eee19b7ec3c1b174')
    expect(normalizeId(Buffer.from('5b8efff798038103d269b633813fc60c', 'hex').toString('base64'))).toBe(
      '5b8efff798038103d269b633813fc60c',
    )
    expect(normalizeId(Buffer.from('eee19b7ec3c1b174', 'hex').toString('base64'))).toBe('eee19b7ec3c1b174')
    expect(normalizeId('span-1')).toBe('span-1')
    expect(normalizeId('5b8efff798038103d269b633813fc60c')).toBe('5b8efff798038103d269b633813fc60c')
  })
})
