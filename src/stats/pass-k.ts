// Trial statistics: pass rate, pass@k (any of k passes) and pass^k (all k pass, τ-bench's reliability).

function check(n: number, c: number, k: number, name: string): void {
  if (!Number.isInteger(n) || n < 1)
    throw new RangeError(`${name}: n (trials run) must be a positive integer, got ${n}`)
  if (!Number.isInteger(c) || c < 0 || c > n)
    throw new RangeError(`${name}: passes must be an integer in 0..n (${n}), got ${c}`)
  if (!Number.isInteger(k) || k < 1 || k > n)
    throw new RangeError(`${name}: k must be an integer in 1..n (${n}), got ${k}; run at least k trials`)
}

// C(a, k) / C(b, k) as a product of ratios, so large n never overflows.
function ratioOfChoose(a: number, b: number, k: number): number {
  if (a < k) return 0
  let r = 1
  for (let i = 0; i < k; i++) r *= (a - i) / (b - i)
  return r
}

/**
 * Fraction of trials that passed.
 *
 * @example
 * passRate([true, true, false, true, true]) // 0.8
 */
export function passRate(outcomes: readonly boolean[]): number {
  if (outcomes.length === 0) throw new RangeError('passRate: no trials; run at least one')
  return outcomes.filter(Boolean).length / outcomes.length
}

/**
 * pass@k from n trials with c passes: the probability that at least one of k trials drawn without
 * replacement passes, 1 − C(n−c, k)/C(n, k) (the unbiased estimator of Chen et al., 2021). With
 * k = n it is 1 when any trial passed.
 *
 * @example
 * passAtK(5, 4, 5) // 1
 */
export function passAtK(n: number, c: number, k: number): number {
  check(n, c, k, 'passAtK')
  return 1 - ratioOfChoose(n - c, n, k)
}

/**
 * pass^k from n trials with c passes: the probability that all of k trials drawn without
 * replacement pass, C(c, k)/C(n, k) (τ-bench, Yao et al., 2024). With k = n it is 1 only when every
 * trial passed.
 *
 * @example
 * passHatK(5, 4, 5) // 0
 * passHatK(5, 4, 2) // 0.6
 */
export function passHatK(n: number, c: number, k: number): number {
  check(n, c, k, 'passHatK')
  return ratioOfChoose(c, n, k)
}
