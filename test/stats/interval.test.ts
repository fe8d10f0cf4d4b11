import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalQuantile, wilsonInterval } from '../../src/stats/interval'

// A second implementation written differently: invert the score test by bisection, i.e. find the p
// where |p̂ − p| / √(p(1−p)/n) = z on each side of p̂. No closed form shared with the code under test.
function scoreTestBounds(x: number, n: number, z: number): [number, number] {
  const phat = x / n
  const stat = (p: number) => Math.abs(phat - p) / Math.sqrt((p * (1 - p)) / n)
  const solve = (lo: number, hi: number, rising: boolean) => {
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2
      if (stat(mid) > z === rising) hi = mid
      else lo = mid
    }
    return (lo + hi) / 2
  }
  const lower = x === 0 ? 0 : solve(1e-15, phat, false)
  const upper = x === n ? 1 : solve(phat, 1 - 1e-15, true)
  return [lower, upper]
}

describe('normalQuantile', () => {
  it('matches the standard normal table', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 8)
    expect(normalQuantile(0.95)).toBeCloseTo(1.644853627, 8)
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829304, 8)
    expect(normalQuantile(0.5)).toBe(0)
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306, 7)
  })
  it('refuses p outside (0, 1)', () => {
    expect(() => normalQuantile(1)).toThrow(/strictly between 0 and 1/)
  })
})

describe('wilsonInterval', () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (score, no continuity correction).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('%i/%i matches Newcombe’s published 95%% interval', (x, n, lower, upper) => {
    const ci = wilsonInterval(x, n)
    expect(ci.lower).toBeCloseTo(lower, 4)
    expect(ci.upper).toBeCloseTo(upper, 4)
  })

  it('gives 4 of 5 trials [0.3755, 0.9638] around 0.8', () => {
    const ci = wilsonInterval(4, 5)
    expect(ci.rate).toBe(0.8)
    expect(ci.lower).toBeCloseTo(0.3755, 4)
    expect(ci.upper).toBeCloseTo(0.9638, 4)
  })

  it('agrees with the inverted score test for any x, n and confidence', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(0.8, 0.9, 0.95, 0.99),
        (n, f, conf) => {
          const x = Math.round(f * n)
          const ci = wilsonInterval(x, n, conf)
          const [lo, hi] = scoreTestBounds(x, n, normalQuantile(1 - (1 - conf) / 2))
          expect(ci.lower).toBeCloseTo(lo, 9)
          expect(ci.upper).toBeCloseTo(hi, 9)
          expect(ci.lower).toBeLessThanOrEqual(ci.rate)
          expect(ci.upper).toBeGreaterThanOrEqual(ci.rate)
        },
      ),
    )
  })

  it('is exact at the edges and wide open with no data', () => {
    expect(wilsonInterval(5, 5).upper).toBe(1)
    expect(wilsonInterval(0, 5).lower).toBe(0)
    expect(wilsonInterval(0, 0)).toMatchObject({ lower: 0, upper: 1 })
  })

  it('explains bad input', () => {
    expect(() => wilsonInterval(6, 5)).toThrow(/successes must be an integer in 0..n \(5\), got 6/)
    expect(() => wilsonInterval(1, 2.5)).toThrow(/n must be a non-negative integer/)
    expect(() => wilsonInterval(1, 2, 95)).toThrow(/confidence must be in \(0, 1\), e.g. 0.95/)
  })
})
