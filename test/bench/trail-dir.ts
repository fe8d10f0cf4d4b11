// Where the TRAIL data lives for tests: TRAIL_DIR, else ../shared/datasets/trail beside the repo (read-only).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { resolve } from 'node:path'

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)))

export const TRAIL_DIR = process.env.TRAIL_DIR ?? resolve(repo, '../shared/datasets/trail')

if (!existsSync(resolve(TRAIL_DIR, 'conformance/expected_official_scores.json'))) {
  throw new Error(`TRAIL data not found at ${TRAIL_DIR}; set TRAIL_DIR to the datasets/trail folder of the shared data`)
}
