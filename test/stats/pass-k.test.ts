import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { passAtK, passHatK, passRate } from '../../src/stats/pass-k'

// Second implementation: enumerate every k-subset of n trials and count (no binomial formula).
function enumerate(n: number, c: number, k: number): { any: number; all: number } {
  const trials = Array.from({ length: n }, (_, i) => i < c)
  let total = 0
  let any = 0
  let all = 0
  const walk = (start: number, chosen: boolean[]) => {
    if (chosen.length === k) {
      total++
      if (chosen.some(Boolean)) any++
      if (chosen.every(Boolean)) all++
      return
    }
    for (let i = start; i < n; i++) walk(i + 1, [...chosen, trials[i]])
  }
  walk(0, [])
  return { any: any / total, all: all / total }
}

describe('pass@k and pass^k', () => {
  it('with 4 of 5 passing: pass^5 = 0, pass@5 = 1, pass^2 = 0.6, rate 0.8', () => {
    expect(passHatK(5, 4, 5)).toBe(0)
    expect(passAtK(5, 4, 5)).toBe(1)
    expect(passHatK(5, 4, 2)).toBeCloseTo(0.6, 12)
    expect(passRate([true, true, false, true, true])).toBe(0.8)
  })

  it('match an enumeration of every k-subset', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 10 })
          .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n }))),
        ([n, c, k]) => {
          const e = enumerate(n, c, k)
          expect(passAtK(n, c, k)).toBeCloseTo(e.any, 12)
          expect(passHatK(n, c, k)).toBeCloseTo(e.all, 12)
        },
      ),
    )
  })

  it('does not overflow at large n', () => {
    expect(passHatK(2000, 1999, 1000)).toBeCloseTo(0.5, 12)
  })

  it('explains bad input', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(/k must be an integer in 1..n \(3\), got 4; run at least k trials/)
    expect(() => passHatK(3, 4, 1)).toThrow(/passes must be an integer in 0..n/)
    expect(() => passRate([])).toThrow(/no trials/)
  })
})
