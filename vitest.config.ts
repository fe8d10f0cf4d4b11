import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const root = fileURLToPath(new URL('.', import.meta.url))
const trailDir = process.env.TRAIL_DIR ?? resolve(root, '../shared/datasets/trail')
const hasTrail = existsSync(resolve(trailDir, 'conformance/expected_official_scores.json'))
// These files are built on the shared TRAIL data (scorer conformance, the harness). In a plain clone
// without it they are left out with a warning; under CI a missing copy must fail, so they stay in.
const NEEDS_TRAIL = [
  'test/bench/trail-conformance.test.ts',
  'test/bench/trail-harness.test.ts',
  'test/bench/extract-json.test.ts',
  'test/cli/bench.test.ts',
]
const skipTrail = !hasTrail && !process.env.CI
if (skipTrail)
  console.warn(`agent-verdict tests: no TRAIL data at ${trailDir} (set TRAIL_DIR); skipping ${NEEDS_TRAIL.join(', ')}`)

// In CI the files and the tests in each file run in a random order, so no test can lean on another's
// leftovers; the seed is printed so a failing order can be replayed. `--sequence.seed=N` picks one.
const ci = !!process.env.CI && !['0', 'false', 'no', 'off'].includes(process.env.CI.toLowerCase())
const seedArg = process.argv.find((a) => a.startsWith('--sequence.seed='))
const seed = seedArg ? Number(seedArg.split('=')[1]) : Math.floor(Math.random() * 1_000_000)
if (ci || process.argv.includes('--sequence.shuffle'))
  console.log(
    `agent-verdict tests: shuffled, seed ${seed} (replay: npx vitest run --sequence.shuffle --sequence.seed=${seed})`,
  )

export default defineConfig({
  test: {
    sequence: { shuffle: ci ? { files: true, tests: true } : undefined, seed },
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/e2e/fixtures/**', ...(skipTrail ? NEEDS_TRAIL : [])],
    // The type tests (test/types/*.test-d.ts) are compiled by `npm run typecheck` (tsc over the whole
    // tree, which CI runs first) rather than by a second tsc run inside Vitest.
    typecheck: { enabled: false, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 30_000,
    // test/e2e/ files (child runners) get 120 s per test: see the file.
    setupFiles: ['test/support/e2e-timeout.ts'],
    hookTimeout: 60_000,
    pool: 'forks',
    // Left to its default, Vitest ran these files one at a time on the 2-core machine (measured). Many
    // files here wait (child runners, a fake judge's latency), so three workers keep both cores busy.
    maxWorkers: 3,
    env: {
      // Expected on Node 20 and said once per worker by the AWS SDK; the tests do not need to hear it.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
})
