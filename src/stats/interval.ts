// Wilson score interval for a binomial proportion, and the normal quantile it needs.

/** A proportion with its confidence interval. */
export interface ProportionInterval {
  successes: number
  n: number
  /** successes / n (NaN when n is 0). */
  rate: number
  lower: number
  upper: number
  confidence: number
}

/**
 * Quantile of the standard normal distribution (Acklam's rational approximation: relative error
 * below 1.2e-9, far finer than any interval reported to 4 decimals needs).
 *
 * @example
 * normalQuantile(0.975) // 1.95996398…
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be strictly between 0 and 1, got ${p}`)
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const low = 0.02425
  let x: number
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p))
    x =
      (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
  } else if (p <= 1 - low) {
    const q = p - 0.5
    const r = q * q
    x =
      ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
      (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p))
    x =
      -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
  }
  return x
}

/**
 * Wilson score interval of `successes` out of `n` (two-sided, default 95%). Unlike the normal
 * ("Wald") interval it stays inside [0, 1] and is honest at small n and at 0 or n successes,
 * which is where agent trials live (k = 5 runs, all passing).
 *
 * @example
 * wilsonInterval(4, 5) // { rate: 0.8, lower: 0.3755…, upper: 0.9637…, … }
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): ProportionInterval {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`wilsonInterval: n must be a non-negative integer, got ${n}`)
  if (!Number.isInteger(successes) || successes < 0 || successes > n)
    throw new RangeError(`wilsonInterval: successes must be an integer in 0..n (${n}), got ${successes}`)
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`wilsonInterval: confidence must be in (0, 1), e.g. 0.95; got ${confidence}`)
  if (n === 0) return { successes, n, rate: Number.NaN, lower: 0, upper: 1, confidence }
  const z = normalQuantile(1 - (1 - confidence) / 2)
  const p = successes / n
  const z2n = (z * z) / n
  const centre = (p + z2n / 2) / (1 + z2n)
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n))) / (1 + z2n)
  // At 0 or n successes the bound is exactly 0 or 1; floating point would leave 1e-17 crumbs.
  const lower = successes === 0 ? 0 : Math.max(0, centre - half)
  const upper = successes === n ? 1 : Math.min(1, centre + half)
  return { successes, n, rate: p, lower, upper, confidence }
}
