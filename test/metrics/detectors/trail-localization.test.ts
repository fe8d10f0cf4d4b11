// Regression guard for issue 5's deterministic aim, on the shared TRAIL dev subset, per split and per
// hash half (the held-out check runs on other traces; a rule that only works on one half is a warning sign).
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findingsToPrediction } from '../../../src/bench/trail-prediction'
import { scoreTrailInputs } from '../../../src/bench/trail-scorer'
import { detect } from '../../../src/metrics/detectors/index'
import { parseTrace } from '../../../src/trace/parse'
import { HAVE_TRAIL, TRAIL_DIR } from './trail'

const half = (id: string) => (createHash('sha256').update(id).digest()[0] % 2 === 0 ? 'A' : 'B')

function scores(split: 'GAIA' | 'SWE_Bench', gold: string, which?: 'A' | 'B') {
  const files = readdirSync(join(TRAIL_DIR, split)).filter(
    (f) => f.endsWith('.json') && (!which || half(f.slice(0, -5)) === which),
  )
  return scoreTrailInputs(
    files.map((file) => {
      const trace = parseTrace(readFileSync(join(TRAIL_DIR, split, file), 'utf8'))
      return {
        file,
        gold: readFileSync(join(TRAIL_DIR, gold, file), 'utf8'),
        prediction: JSON.stringify(findingsToPrediction(detect(trace))),
      }
    }),
  )
}

describe.skipIf(!HAVE_TRAIL)('deterministic TRAIL localization (issue 5 aim)', () => {
  it.each([undefined, 'A', 'B'] as const)(
    'GAIA %s: location ≥ 0.25, joint ≥ 0.15, localization precision ≥ 0.5',
    (which) => {
      const s = scores('GAIA', 'annotations_gaia', which)
      expect(s.files_processed).toBeGreaterThan(which ? 25 : 70)
      expect(s.location_accuracy).toBeGreaterThanOrEqual(0.25)
      expect(s.joint_accuracy).toBeGreaterThanOrEqual(0.15)
      expect(s.localization_precision).toBeGreaterThanOrEqual(0.5)
    },
  )

  it('SWE-bench: localization precision stays ≥ 0.5', () => {
    const s = scores('SWE_Bench', 'annotations_swe_bench')
    expect(s.localization_precision).toBeGreaterThanOrEqual(0.5)
    expect(s.location_accuracy).toBeGreaterThan(0.15)
  })
})
