import { describe, expect, it } from 'vitest'
import { averageRanks, spearman } from '../../src/stats/rank'

describe('spearman', () => {
  it('averages tied ranks', () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4])
    expect(averageRanks([3, 3, 3])).toEqual([2, 2, 2])
  })

  it('matches a hand computation with ties', () => {
    // ranks x = [1, 2.5, 2.5, 4], y = [1, 3, 2, 4]; deviations from 2.5: Σdxdy = 4.5, Σdx² = 4.5, Σdy² = 5 → ρ = 4.5/√22.5 = 3/√10.
    expect(spearman([1, 2, 2, 3], [1, 3, 2, 4])).toBeCloseTo(3 / Math.sqrt(10), 12)
  })

  it('matches 1 − 6Σd²/(n(n²−1)) when there are no ties', () => {
    const x = [3, 1, 4, 5, 9, 2, 6]
    const y = [2, 7, 1, 8, 3, 6, 5]
    const rx = averageRanks(x)
    const ry = averageRanks(y)
    const d2 = rx.reduce((s, r, i) => s + (r - ry[i]) ** 2, 0)
    const n = x.length
    expect(spearman(x, y)).toBeCloseTo(1 - (6 * d2) / (n * (n * n - 1)), 12)
  })

  it('is ±1 for monotone data and NaN for a constant side', () => {
    expect(spearman([1, 2, 3], [10, 100, 1000])).toBeCloseTo(1, 12)
    expect(spearman([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12)
    expect(spearman([1, 2, 3], [4, 4, 4])).toBeNaN()
  })

  it('refuses unpaired or non-finite input', () => {
    expect(() => spearman([1, 2], [1])).toThrow(/pass paired lists/)
    expect(() => spearman([1, Number.NaN], [1, 2])).toThrow(/finite/)
  })
})
