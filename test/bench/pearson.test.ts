import { expect, test } from 'vitest'
import { logGamma, pearson, regularizedBeta } from '../../src/bench/pearson'

test('fewer than two pairs: scipy raises and the scorer reports r = 0, p = 1', () => {
  expect(pearson([], [])).toEqual({ correlation: 0, p_value: 1, n: 0 })
  expect(pearson([3], [4])).toEqual({ correlation: 0, p_value: 1, n: 1 })
})

test('a constant side gives NaN for r and p (gold security_score is always 5)', () => {
  const r = pearson([5, 5, 5, 5], [1, 2, 3, 4])
  expect(r.correlation).toBeNaN()
  expect(r.p_value).toBeNaN()
  expect(r.n).toBe(4)
  expect(pearson([1, 2, 3], [2, 2, 2]).correlation).toBeNaN()
})

test('two pairs: r is the product of the difference signs and p is 1', () => {
  expect(pearson([1, 2], [5, 3])).toEqual({ correlation: -1, p_value: 1, n: 2 })
  expect(pearson([1, 4], [0, 9])).toEqual({ correlation: 1, p_value: 1, n: 2 })
  expect(pearson([2, 2], [0, 9]).correlation).toBeNaN()
})

test('r matches the textbook value', () => {
  // Σ(x−x̄)(y−ȳ) = 6, Σ(x−x̄)² = 10, Σ(y−ȳ)² = 6  →  r = 6 / √60
  expect(pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]).correlation).toBeCloseTo(6 / Math.sqrt(60), 14)
})

test('p for n = 4 is 1 − |r| (Beta(1,1) is uniform), for n = 3 the arcsine law', () => {
  const four = pearson([1, 2, 3, 4], [1, 3, 2, 5])
  expect(Math.abs(four.p_value - (1 - Math.abs(four.correlation)))).toBeLessThan(1e-12)
  const three = pearson([1, 2, 3], [1, 3, 2])
  const want = 2 * (1 - (2 / Math.PI) * Math.asin(Math.sqrt((1 + Math.abs(three.correlation)) / 2)))
  expect(Math.abs(three.p_value - want)).toBeLessThan(1e-12)
})

test('p for larger n agrees with the t distribution (df = 3 has a closed form)', () => {
  const r = pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])
  const t = r.correlation * Math.sqrt(3 / (1 - r.correlation ** 2))
  const u = t / Math.sqrt(3)
  const want = 1 - (2 / Math.PI) * (Math.atan(u) + u / (1 + u * u))
  expect(Math.abs(r.p_value - want)).toBeLessThan(1e-12)
})

test('NaN inputs propagate to NaN', () => {
  expect(pearson([1, Number.NaN, 3], [1, 2, 3]).correlation).toBeNaN()
})

test('logGamma and the incomplete beta hit known values', () => {
  expect(logGamma(5)).toBeCloseTo(Math.log(24), 13)
  expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 13)
  expect(regularizedBeta(0.3, 1, 1)).toBeCloseTo(0.3, 14)
  expect(regularizedBeta(0.25, 2, 3)).toBeCloseTo(0.26171875, 13) // 1 − (1−x)^3·(1+3x) at x = ¼
  expect(regularizedBeta(0.5, 39, 39)).toBeCloseTo(0.5, 12)
})
