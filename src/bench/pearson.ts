// Pearson correlation with scipy.stats.pearsonr's semantics, as the TRAIL scorer uses it.
import * as z from 'zod'

/** r, two-sided p-value and the number of pairs; r and p are NaN for a constant input. */
export const CorrelationSchema = z.object({
  correlation: z.number().or(z.nan()),
  p_value: z.number().or(z.nan()),
  n: z.number().int(),
})
export type Correlation = z.infer<typeof CorrelationSchema>

/**
 * `scipy.stats.pearsonr(x, y)` as the official TRAIL scorer calls it: n < 2 makes scipy raise and
 * the scorer report r = 0, p = 1; a constant input gives NaN (r and p); n == 2 gives r = ±1 by the
 * signs of the differences, p = 1; otherwise p is two-sided from Beta(n/2−1, n/2−1) on [−1, 1].
 *
 * @example
 * pearson([1, 2, 3], [2, 4, 7]).correlation // 0.9933…
 */
export function pearson(x: readonly number[], y: readonly number[]): Correlation {
  const n = x.length
  if (n !== y.length)
    throw new Error(`pearson: x has ${n} values and y has ${y.length}; pass paired lists of equal length`)
  if (n < 2) return { correlation: 0, p_value: 1, n }
  // scipy's test is exact equality with the first element (NaN never equals, so NaN input is not "constant").
  if (x.every((v) => v === x[0]) || y.every((v) => v === y[0]))
    return { correlation: Number.NaN, p_value: Number.NaN, n }
  if (n === 2) return { correlation: Math.sign(x[1] - x[0]) * Math.sign(y[1] - y[0]), p_value: 1, n }
  const xm = center(x)
  const ym = center(y)
  const nx = norm(xm)
  const ny = norm(ym)
  let dot = 0
  for (let i = 0; i < n; i++) dot += (xm[i] / nx) * (ym[i] / ny)
  const r = Math.max(Math.min(dot, 1), -1)
  const ab = n / 2 - 1
  // Two-sided p = 2·P(X > |r|) for X ~ 2·Beta(ab, ab) − 1, i.e. 2·I_{(1−|r|)/2}(ab, ab).
  const p = Number.isNaN(r) ? Number.NaN : Math.min(1, 2 * regularizedBeta((1 - Math.abs(r)) / 2, ab, ab))
  return { correlation: r, p_value: p, n }
}

function center(v: readonly number[]): number[] {
  let sum = 0
  for (const x of v) sum += x
  const mean = sum / v.length
  return v.map((x) => x - mean)
}

function norm(v: readonly number[]): number {
  // Scaled like BLAS nrm2 so huge scores cannot overflow the sum of squares.
  let scale = 0
  for (const x of v) scale = Math.max(scale, Math.abs(x))
  if (scale === 0 || !Number.isFinite(scale)) return scale
  let ss = 0
  for (const x of v) ss += (x / scale) ** 2
  return scale * Math.sqrt(ss)
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
]

/** ln Γ(z) for z > 0 (Lanczos, g = 7; ~15 significant digits). */
export function logGamma(z: number): number {
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - logGamma(1 - z)
  const w = z - 1
  let a = LANCZOS[0]
  const t = w + 7.5
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (w + i)
  return 0.5 * Math.log(2 * Math.PI) + (w + 0.5) * Math.log(t) - t + Math.log(a)
}

/** Regularized incomplete beta I_x(a, b), by the continued fraction (Lentz) on the converging side. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - (logGamma(a) + logGamma(b) - logGamma(a + b)))
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const delta = d * c
    h *= delta
    if (Math.abs(delta - 1) < 1e-16) break
  }
  return h
}
