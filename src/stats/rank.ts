// Spearman rank correlation with ties (average ranks, then Pearson on the ranks).

/**
 * Ranks 1..n, ties sharing the average of the ranks they span (`[10, 20, 20, 30]` → `[1, 2.5, 2.5, 4]`).
 *
 * @example
 * averageRanks([3, 1, 3]) // [2.5, 1, 2.5]
 */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v)
  const ranks = new Array<number>(values.length)
  for (let start = 0; start < order.length; ) {
    let end = start
    while (end + 1 < order.length && order[end + 1].v === order[start].v) end++
    const rank = (start + end) / 2 + 1
    for (let t = start; t <= end; t++) ranks[order[t].i] = rank
    start = end + 1
  }
  return ranks
}

/**
 * Spearman's ρ with ties handled by average ranks (the definition scipy.stats.spearmanr uses). NaN
 * when either side is constant (no ranking to correlate).
 *
 * @example
 * spearman([1, 2, 2, 3], [1, 3, 2, 4]) // 0.9487 (3/√10)
 */
export function spearman(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length)
    throw new RangeError(`spearman: x has ${x.length} values and y has ${y.length}; pass paired lists`)
  if (x.some((v) => !Number.isFinite(v)) || y.some((v) => !Number.isFinite(v)))
    throw new RangeError('spearman: every value must be a finite number')
  if (x.length < 2) return Number.NaN
  const rx = averageRanks(x)
  const ry = averageRanks(y)
  const mean = (rx.length + 1) / 2
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < rx.length; i++) {
    const dx = rx[i] - mean
    const dy = ry[i] - mean
    sxy += dx * dy
    sxx += dx * dx
    syy += dy * dy
  }
  if (sxx === 0 || syy === 0) return Number.NaN
  return sxy / Math.sqrt(sxx * syy)
}
