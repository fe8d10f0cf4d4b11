import { TRAIL_CATEGORIES } from '../taxonomy'
import { normalizeCategory } from './normalize-category'
import { pyFirst, pyGet, pyHashKey, pyIter, pyTruthy } from './py'

/** What `calculate_metrics` returns for one trace, plus the set sizes localization precision needs. */
export interface TraceMetrics {
  /** |set(gold locations) ∩ set(predicted locations)| / |set(gold locations)|; 0 without gold errors. */
  locationAccuracy: number
  /** Same over (location, normalised category) pairs; 0 without gold pairs. */
  jointAccuracy: number
  /** One 0/1 per label of {@link TRAIL_CATEGORIES}: label present in the gold / predicted errors. */
  yTrue: number[]
  yPred: number[]
  /** `scores[0]` of each side, or `{}` when `scores` is falsy (any JSON value: the scorer does not check). */
  gtScores: unknown
  genScores: unknown
  /** Distinct gold locations, distinct predicted locations, and how many are in both. */
  goldLocations: number
  predictedLocations: number
  matchedLocations: number
  /** Distinct gold (location, category) pairs, distinct predicted pairs, and how many are in both. */
  goldPairs: number
  predictedPairs: number
  matchedPairs: number
  /** Joint accuracy after keeping only the first predicted category of each location (prediction order). */
  top1JointAccuracy: number
  /** Errors the prediction lists (before any deduplication). */
  predictions: number
}

/**
 * The official TRAIL scorer's `calculate_metrics(gt, gen)` for one trace. Both headline numbers are
 * recall over distinct gold items. Categories are normalised and falsy ones filtered *before* being
 * zipped with locations by index (so one empty category shifts the later ones — reproduced). Throws
 * a PyError wherever Python would raise (non-dict errors, unhashable locations, non-string categories).
 *
 * @example
 * const m = calculateMetrics(
 *   { errors: [{ category: 'Formatting Errors', location: 'a1' }] },
 *   { errors: [{ category: 'formatting', location: 'a1' }, { category: 'Goal Deviation', location: 'b2' }] },
 * )
 * m.locationAccuracy // 1
 * m.jointAccuracy    // 1 ('formatting' normalises to 'Formatting Errors')
 */
export function calculateMetrics(gt: unknown, gen: unknown): TraceMetrics {
  const gtErrors = pyIter(pyGet(gt, 'errors', []))
  const gtCategoriesRaw = gtErrors.map((e) => pyGet(e, 'category', ''))
  const gtLocations = gtErrors.map((e) => pyGet(e, 'location', ''))
  const genErrors = pyIter(pyGet(gen, 'errors', []))
  const genCategoriesRaw = genErrors.map((e) => pyGet(e, 'category', ''))
  const genLocations = genErrors.map((e) => pyGet(e, 'location', ''))

  const gtCategories = gtCategoriesRaw.filter(pyTruthy).map((c) => normalizeCategory(c))
  const genCategories = genCategoriesRaw.filter(pyTruthy).map((c) => normalizeCategory(c))

  const pairKeys = (locations: unknown[], categories: string[]) =>
    locations.slice(0, categories.length).map((loc, i) => JSON.stringify([pyHashKey(loc), categories[i]]))
  const gtPairs = new Set(pairKeys(gtLocations, gtCategories))
  const genPairs = new Set(pairKeys(genLocations, genCategories))
  const gtLocs = new Set(gtLocations.map(pyHashKey))
  const genLocs = new Set(genLocations.map(pyHashKey))

  const matchedPairs = countShared(gtPairs, genPairs)
  const matchedLocations = countShared(gtLocs, genLocs)
  // The companion a recall-only metric needs: one category per predicted span, so naming two or three
  // categories on one span earns nothing over naming the most likely one.
  const top1Pairs = new Set<string>()
  const seenLocations = new Set<string>()
  pairKeys(genLocations, genCategories).forEach((key, i) => {
    const loc = pyHashKey(genLocations[i])
    if (seenLocations.has(loc)) return
    seenLocations.add(loc)
    top1Pairs.add(key)
  })

  const labels = TRAIL_CATEGORIES as readonly string[]
  const indicator = (categories: string[]) => labels.map((label) => (categories.includes(label) ? 1 : 0))

  const gtScoresList = pyGet(gt, 'scores', undefined)
  const genScoresList = pyGet(gen, 'scores', undefined)
  return {
    jointAccuracy: gtPairs.size > 0 ? matchedPairs / gtPairs.size : 0,
    locationAccuracy: gtLocations.length > 0 ? matchedLocations / gtLocs.size : 0,
    yTrue: indicator(gtCategories),
    yPred: indicator(genCategories),
    gtScores: pyTruthy(gtScoresList) ? pyFirst(gtScoresList) : {},
    genScores: pyTruthy(genScoresList) ? pyFirst(genScoresList) : {},
    goldLocations: gtLocs.size,
    predictedLocations: genLocs.size,
    matchedLocations,
    goldPairs: gtPairs.size,
    predictedPairs: genPairs.size,
    matchedPairs,
    top1JointAccuracy: gtPairs.size > 0 ? countShared(gtPairs, top1Pairs) / gtPairs.size : 0,
    predictions: genErrors.length,
  }
}

function countShared(a: Set<string>, b: Set<string>): number {
  let n = 0
  for (const k of a) if (b.has(k)) n++
  return n
}
