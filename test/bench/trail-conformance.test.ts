// Every number the official TRAIL scorer printed for the conformance prediction sets, reproduced.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { scoreTrailDirs } from '../../src/bench/score-dirs'
import { TRAIL_SPLIT_DIRS, type TrailSplit } from '../../src/bench/splits'
import type { TrailScores } from '../../src/bench/trail-scorer'
import { TRAIL_DIR } from './trail-dir'

type Num = number | 'NaN'
interface Expected {
  weighted_f1: number
  location_accuracy: number
  joint_accuracy: number
  files_processed: number
  category_metrics_with_support: Record<string, { precision: number; recall: number; f1: number; support: number }>
  score_correlations: Record<string, { correlation: Num; p_value: Num; n: number }>
}

const expected = JSON.parse(
  readFileSync(join(TRAIL_DIR, 'conformance/expected_official_scores.json'), 'utf8'),
) as Record<string, Record<TrailSplit, Expected>>

/** |Δ| < 1e-9, with the file's "NaN" matching only NaN. */
function close(actual: number, want: Num, what: string): void {
  if (want === 'NaN') expect(actual, what).toBeNaN()
  else expect(Math.abs(actual - want), `${what}: got ${actual}, official ${want}`).toBeLessThan(1e-9)
}

const sets = Object.keys(expected)

test('the conformance file covers all eight prediction sets', () => {
  expect(sets.sort()).toEqual([
    'first_half',
    'gold_exact',
    'gold_locations_one_category',
    'noisy_wrapped',
    'silent',
    'some_missing',
    'some_unparseable',
    'wrong_locations',
  ])
})

describe.each(sets)('conformance set %s', (set) => {
  test.each(['GAIA', 'SWE_Bench'] as const)('%s matches the official scorer to 1e-9', async (split) => {
    const want = expected[set][split]
    const got: TrailScores = await scoreTrailDirs(
      join(TRAIL_DIR, TRAIL_SPLIT_DIRS[split].gold),
      join(TRAIL_DIR, 'conformance/predictions', set, split),
    )

    expect(got.files_processed).toBe(want.files_processed)
    close(got.weighted_f1, want.weighted_f1, 'weighted_f1')
    close(got.location_accuracy, want.location_accuracy, 'location_accuracy')
    close(got.joint_accuracy, want.joint_accuracy, 'joint_accuracy')

    expect(Object.keys(got.category_metrics_with_support).sort()).toEqual(
      Object.keys(want.category_metrics_with_support).sort(),
    )
    for (const [label, w] of Object.entries(want.category_metrics_with_support)) {
      const g = got.category_metrics_with_support[label]
      expect(g.support, `${label}.support`).toBe(w.support)
      close(g.precision, w.precision, `${label}.precision`)
      close(g.recall, w.recall, `${label}.recall`)
      close(g.f1, w.f1, `${label}.f1`)
    }

    expect(Object.keys(got.score_correlations).sort()).toEqual(Object.keys(want.score_correlations).sort())
    for (const [name, w] of Object.entries(want.score_correlations)) {
      const g = got.score_correlations[name as keyof TrailScores['score_correlations']]
      expect(g.n, `${name}.n`).toBe(w.n)
      close(g.correlation, w.correlation, `${name}.correlation`)
      close(g.p_value, w.p_value, `${name}.p_value`)
    }
  })
})

test('missing predictions are skipped, not scored 0 (some_missing)', async () => {
  const got = await scoreTrailDirs(
    join(TRAIL_DIR, 'annotations_gaia'),
    join(TRAIL_DIR, 'conformance/predictions/some_missing/GAIA'),
  )
  expect(got.skipped.filter((s) => s.reason === 'no prediction file')).toHaveLength(80 - 69)
})

test('unparseable predictions are skipped, not scored 0 (some_unparseable)', async () => {
  const got = await scoreTrailDirs(
    join(TRAIL_DIR, 'annotations_gaia'),
    join(TRAIL_DIR, 'conformance/predictions/some_unparseable/GAIA'),
  )
  expect(got.skipped).toHaveLength(16)
  expect(got.skipped.every((s) => /no JSON object/.test(s.reason))).toBe(true)
})
