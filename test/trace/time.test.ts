import { describe, expect, it } from 'vitest'
import { hrTimeToNs, isoDurationToNs, isoToNs, unixNanoToNs } from '../../src/trace/time'

describe('exact time conversions', () => {
  it('ISO timestamps keep every digit up to ns, with or without a zone', () => {
    const second = BigInt(Date.parse('2025-03-25T09:12:19Z')) * 1_000_000n
    expect(isoToNs('2025-03-25T09:12:19.740766Z')).toBe(second + 740_766_000n)
    expect(isoToNs('2025-03-25T09:12:19.740766')).toBe(second + 740_766_000n)
    expect(isoToNs('2025-03-25T09:12:19Z')).toBe(second)
    expect(isoToNs('2025-03-25T09:12:19.123456789999Z')).toBe(second + 123_456_789n)
    expect(isoToNs('2025-03-25T11:12:19.5+02:00')).toBe(second + 500_000_000n)
    expect(isoToNs('2025-03-25 09:12:19.5')).toBe(second + 500_000_000n)
  })

  it('refuses what is not a timestamp', () => {
    for (const bad of ['', 'yesterday', '2025-13-01T00:00:00Z', '2025-03-25T25:00:00Z', '2025-03-25T09:12:19.5 UTC'])
      expect(isoToNs(bad)).toBeUndefined()
  })

  it('ISO-8601 durations as TRAIL writes them', () => {
    expect(isoDurationToNs('PT4.829649S')).toBe(4_829_649_000n)
    expect(isoDurationToNs('PT1M48.75533S')).toBe(108_755_330_000n)
    expect(isoDurationToNs('PT1H2M3.4S')).toBe(3_723_400_000_000n)
    expect(isoDurationToNs('PT0.000818S')).toBe(818_000n)
    expect(isoDurationToNs('P1DT2H')).toBe(93_600_000_000_000n)
    expect(isoDurationToNs('PT0S')).toBe(0n)
  })

  it('refuses ambiguous or malformed durations', () => {
    for (const bad of ['', 'P', 'PT', '4.8S', 'PT1.S', 'PT5', 'P1M', 'P1Y', 'PT1.5M', 'PTT1S'])
      expect(isoDurationToNs(bad), bad).toBeUndefined()
  })

  it('HrTime and unix-nano values', () => {
    expect(hrTimeToNs([1_742_893_200, 999_999_999])).toBe(1_742_893_200_999_999_999n)
    expect(unixNanoToNs('1742893200000000123')).toBe(1_742_893_200_000_000_123n)
    expect(unixNanoToNs(1_000)).toBe(1_000n)
    expect(unixNanoToNs('12a')).toBeUndefined()
    expect(unixNanoToNs(-1)).toBeUndefined()
  })
})
