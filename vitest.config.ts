import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import fg from 'fast-glob'
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

// Pure unit files (parsers, detectors, statistics, renderers: no judge, server, network patch or test runtime) share their
// worker's module cache with the files before them (`isolate: false`): they import the same src/ graph and node_modules
// (zod, the OTel SDK), and importing it once per worker instead of once per file cut the CPU time of 60 unit files from
// 138 s to 82 s (decision 0051). Every other file keeps a fresh worker of its own: with all files shared, 16 of 180 failed,
// because the judge, cassette and run-coordinator state and patched HTTP of one file reached the next. A file joins this
// list only if it imports none of src/judges, src/testing, src/recording, src/capture, matchers/, runner/, reporters/,
// msw or a server, and sets no env or globalThis key.
const SHARED = [
  'test/stats/**',
  'test/verdict/**',
  'test/trace/**',
  'test/metrics/detectors/**',
  'test/bench/**',
  'test/report/**',
  'test/media/dimensions.test.ts',
  'test/media/sniff.test.ts',
  'test/diagnosis/canonical.test.ts',
  'test/diagnosis/fit-fenced.test.ts',
  'test/diagnosis/truncate.test.ts',
]
const NOT_SHARED = [
  'test/bench/judge-modes.test.ts',
  'test/bench/oracle.test.ts',
  'test/metrics/detectors/unrecognized-error.test.ts',
  'test/report/gates.test.ts',
  'test/report/otlp.test.ts',
  'test/report/render-html.test.ts',
  'test/report/render-junit.test.ts',
  'test/trace/load-bounded.test.ts',
  'test/trace/load.test.ts',
  'test/trace/several-runs-hint.test.ts',
  'test/trace/time-sanity.test.ts',
  'test/trace/receiver/exporters.test.ts',
  'test/trace/receiver/hostile.test.ts',
]
const shared = fg.sync(
  SHARED.map((p) => (p.endsWith('**') ? `${p}/*.test.ts` : p)),
  { cwd: root, ignore: NOT_SHARED },
)
const exclude = ['**/node_modules/**', 'test/e2e/fixtures/**', ...(skipTrail ? NEEDS_TRAIL : [])]

export default defineConfig({
  test: {
    projects: [
      // `extends: true` adds a project's include and exclude to the root's: so the root has no include.
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: shared } },
      { extends: true, test: { name: 'shared', isolate: false, include: shared } },
    ],
    sequence: { shuffle: ci ? { files: true, tests: true } : undefined, seed },
    exclude,
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
