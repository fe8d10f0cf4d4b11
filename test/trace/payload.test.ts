// Which span payloads the reader parses and which it keeps raw (with one warning per trace).
import { describe, expect, it } from 'vitest'
import { newSpan } from '../../src/trace/readers/common'
import { ReadContext } from '../../src/trace/readers/context'
import { readPayload } from '../../src/trace/readers/payload'

const span = () => newSpan('s1', null, 't1', 'CodeAgent.run', 0n, 1n, 'ok', '', {}, [])

describe('readPayload', () => {
  it('parses small JSON, keeps other text raw', () => {
    const ctx = new ReadContext()
    expect(readPayload('{"a": [1, "x"]}', span(), ctx)).toEqual({ a: [1, 'x'] })
    expect(readPayload(' [ "a" ] ', span(), ctx)).toEqual(['a'])
    expect(readPayload('Execution logs: done', span(), ctx)).toBe('Execution logs: done')
    expect(ctx.warningsFor('t1')).toEqual([])
  })

  it.each(["{'01': 15, '02': 12}", "[ 'a', 'b' ]", "{\n  'short': 'x'}", '{"a": 1', '[1, 2,]'])(
    'keeps %j raw with one unparsed-payload warning (Python reprs and broken JSON alike)',
    (text) => {
      const ctx = new ReadContext()
      expect(readPayload(text, span(), ctx)).toBe(text)
      expect(readPayload(text, span(), ctx)).toBe(text)
      expect(ctx.warningsFor('t1')).toEqual([
        {
          code: 'unparsed-payload',
          spanId: 's1',
          message:
            'span s1 (CodeAgent.run): a payload looks like JSON but does not parse; kept as the raw string (reported once per trace)',
        },
      ])
    },
  )
})
