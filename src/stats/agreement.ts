// Agreement between two raters (human labels vs judge): confusion matrix, Cohen's κ, quadratic-weighted κ.

/** Counts of (label, prediction) pairs; `matrix[i][j]` = cases labelled `categories[i]` and predicted `categories[j]`. */
export interface ConfusionMatrix<T extends string | number = string | number> {
  categories: T[]
  matrix: number[][]
  n: number
}

/**
 * Confusion matrix of paired labels. `categories` fixes the order (and lets a category nobody used
 * appear as a zero row, which matters for weighted κ); by default the sorted union of both lists.
 *
 * @example
 * confusionMatrix([true, false], [true, true]).matrix // [[0, 1], [0, 1]] (categories [false, true] as strings)
 */
export function confusionMatrix<T extends string | number | boolean>(
  labels: readonly T[],
  predictions: readonly T[],
  categories?: readonly T[],
): ConfusionMatrix<string | number> {
  if (labels.length !== predictions.length)
    throw new RangeError(
      `confusionMatrix: ${labels.length} labels but ${predictions.length} predictions; pass one prediction per label`,
    )
  const norm = (v: T): string | number => (typeof v === 'boolean' ? String(v) : v)
  const cats = (categories ?? [...new Set([...labels, ...predictions])]).map(norm)
  const unique = [...new Set(cats)]
  if (!categories)
    unique.sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))))
  const index = new Map(unique.map((c, i) => [c, i]))
  const matrix = unique.map(() => unique.map(() => 0))
  labels.forEach((label, i) => {
    const r = index.get(norm(label))
    const c = index.get(norm(predictions[i]))
    if (r === undefined || c === undefined)
      throw new RangeError(
        `confusionMatrix: value ${String(r === undefined ? label : predictions[i])} is not one of the categories ${unique.join(', ')}`,
      )
    matrix[r][c]++
  })
  return { categories: unique, matrix, n: labels.length }
}

/**
 * Share of pairs on the diagonal (raw agreement).
 *
 * @example
 * agreement(confusionMatrix(['a', 'b'], ['a', 'a'])) // 0.5
 */
export function agreement(cm: ConfusionMatrix): number {
  if (cm.n === 0) return Number.NaN
  let diag = 0
  for (let i = 0; i < cm.matrix.length; i++) diag += cm.matrix[i][i]
  return diag / cm.n
}

// κ = 1 − Σ w·O / Σ w·E with disagreement weights w; unweighted κ uses w = 1 off the diagonal.
function weighted(cm: ConfusionMatrix, weight: (i: number, j: number) => number): number {
  const k = cm.matrix.length
  const n = cm.n
  if (n === 0) return Number.NaN
  const rows = cm.matrix.map((r) => r.reduce((a, b) => a + b, 0))
  const cols = cm.matrix[0]?.map((_, j) => cm.matrix.reduce((a, r) => a + r[j], 0)) ?? []
  let observed = 0
  let expected = 0
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      observed += weight(i, j) * cm.matrix[i][j]
      expected += (weight(i, j) * rows[i] * cols[j]) / n
    }
  }
  // Both raters used one and the same category throughout: agreement is perfect but κ is undefined.
  if (expected === 0) return observed === 0 ? Number.NaN : Number.NEGATIVE_INFINITY
  return 1 - observed / expected
}

/**
 * Cohen's κ: agreement corrected for the agreement expected by chance from each rater's marginals.
 * 1 = perfect, 0 = chance, < 0 = worse than chance. NaN when both raters always gave one same label.
 *
 * @example
 * cohenKappa(confusionMatrix(humanLabels, judgeLabels))
 */
export function cohenKappa(cm: ConfusionMatrix): number {
  return weighted(cm, (i, j) => (i === j ? 0 : 1))
}

/**
 * Quadratic-weighted κ for ordinal scales (e.g. 1–5): a disagreement of d steps costs d², so a
 * judge that says 4 for a human 5 is penalised far less than one that says 1. Pass the full scale
 * as `categories` to `confusionMatrix` so unused levels still count in the distances.
 *
 * @example
 * quadraticWeightedKappa(confusionMatrix(human, judge, [1, 2, 3, 4, 5]))
 */
export function quadraticWeightedKappa(cm: ConfusionMatrix): number {
  const k = cm.matrix.length
  if (k < 2) return Number.NaN
  return weighted(cm, (i, j) => ((i - j) * (i - j)) / ((k - 1) * (k - 1)))
}
