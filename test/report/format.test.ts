import { describe, expect, test } from 'vitest'
import { formatInt } from '../../src/report/format'

describe('formatInt', () => {
  test('groups thousands as en-US does, without loading Intl', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, -1_234_567, Number.MAX_SAFE_INTEGER])
      expect(formatInt(n)).toBe(n.toLocaleString('en-US'))
  })

  test('non-integers and huge numbers fall back to toLocaleString', () => {
    expect(formatInt(1234.5)).toBe('1,234.5')
    expect(formatInt(1e21)).toBe((1e21).toLocaleString('en-US'))
  })
})
