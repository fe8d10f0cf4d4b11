import { describe, expect, it } from 'vitest'
import { parseRetryAfter } from '../../src/judges/retry-after'

const NOW = Date.parse('2026-03-01T12:00:00Z')

describe('parseRetryAfter', () => {
  it.each([
    [{ 'retry-after': '0.2' }, 200],
    [{ 'retry-after': '3' }, 3000],
    [{ 'Retry-After': '3' }, 3000],
    [{ 'retry-after': 'Sun, 01 Mar 2026 12:00:05 GMT' }, 5000],
    [{ 'retry-after': 'Sun, 01 Mar 2026 11:59:00 GMT' }, 0],
    [{ 'retry-after-ms': '150', 'retry-after': '9' }, 150],
    [{ 'retry-after': ['2'] }, 2000],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%o → %s ms', (headers, expected) => {
    expect(parseRetryAfter(headers, NOW)).toBe(expected)
    if (!Object.values(headers).some(Array.isArray))
      expect(parseRetryAfter(new Headers(headers as Record<string, string>), NOW)).toBe(expected)
  })

  it('is undefined without headers', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined()
  })
})
