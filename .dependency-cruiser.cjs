// The allowed arrows between folders of ../shared/DESIGN.md ("Layout and boundaries"), enforced in CI
// (`npm run lint:deps`). Each src/ folder lists the src/ folders it may import; anything else is an error.
// Arrows point down; none points back, so no cycle between folders can form. src/cli is the top of src: it may
// import any folder, and nothing imports it (rule nothing-imports-cli).
const ALLOWED = {
  taxonomy: [],
  // Atomic file writes and the clean-up of killed writers' temp files: a leaf every folder that writes files uses.
  files: [],
  config: [],
  stats: [],
  verdict: [],
  trace: ['files'],
  media: [],
  judges: ['config', 'media', 'files'],
  cassette: ['judges', 'config', 'files'],
  // The agent's own HTTP calls: the cassette's modes and lock; judges only mark their calls (in config).
  recording: ['config', 'cassette', 'files'],
  metrics: ['judges', 'trace', 'media', 'verdict', 'taxonomy', 'config'],
  diagnosis: ['metrics', 'judges', 'trace', 'verdict', 'taxonomy', 'media', 'config'],
  report: ['verdict', 'taxonomy', 'config', 'stats', 'files'],
  bench: [
    'diagnosis',
    'metrics',
    'judges',
    'trace',
    'verdict',
    'taxonomy',
    'media',
    'config',
    'stats',
    'cassette',
    'testing',
  ],
  // The fake judge counts usage with the budgets' own tokenizer.
  testing: ['config', 'judges'],
  // Repeated runs summarised as pass^k over verdicts: statistics, one level above the leaves.
  trials: ['stats', 'verdict'],
  // Runs the judge metrics on labelled cases and measures agreement: a consumer of metrics, like diagnosis.
  calibration: ['metrics', 'judges', 'media', 'verdict', 'stats', 'config'],
  // captureTrace: the trace model, and the recording layer's replayed-call hook (decision 0035).
  capture: ['trace', 'recording'],
}
const folders = Object.keys(ALLOWED)

module.exports = {
  forbidden: [
    ...folders.map((from) => ({
      name: `layer-${from}`,
      comment: `src/${from} may import only: ${ALLOWED[from].join(', ') || 'nothing else in src'} (DESIGN.md)`,
      severity: 'error',
      from: { path: `^src/${from}/` },
      to: { path: `^src/(?!(${[from, ...ALLOWED[from]].join('|')})/)[^/]+/` },
    })),
    {
      name: 'reporters-through-report',
      comment: 'runner adapters in reporters/ use src/report, src/verdict, src/config and src/files only',
      severity: 'error',
      from: { path: '^reporters/' },
      to: { path: '^src/(?!(report|verdict|config|files)/)' },
    },
    {
      name: 'runner-below-matchers',
      comment:
        "runner/ (plugin, global setup, per-runner state, call sites, annotations, guards) serves the matchers: matchers/ → runner/, never back (the plugin may name the reporter's options)",
      severity: 'error',
      from: { path: '^runner/' },
      to: { path: '^matchers/' },
    },
    {
      name: 'reporters-apart-from-runner',
      comment: "reporters/ read verdicts from the runner's task metadata, never from the matcher or runner code",
      severity: 'error',
      from: { path: '^reporters/' },
      to: { path: '^(matchers|runner)/' },
    },
    {
      name: 'runner-uses-src-by-path',
      comment: 'runner/ uses the engine (src/) but not the CLI or bench code',
      severity: 'error',
      from: { path: '^runner/' },
      to: { path: '^src/(cli|bench)/' },
    },
    {
      name: 'nothing-imports-cli',
      comment: 'src/cli is the top of src: cli → anything in src, never back (the public entry included)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'nothing-imports-the-entry',
      comment: 'src/index.ts is the public barrel: modules import each other by path, never through it',
      severity: 'error',
      from: { path: '^(src|matchers|runner|reporters)/', pathNot: '^src/index\\.ts$' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'src-is-runner-agnostic',
      comment: 'src/ never imports vitest or jest (matchers/ and reporters/ are the runner adapters)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: 'node_modules/(vitest|jest|@jest|@vitest)/' },
    },
    {
      name: 'src-never-imports-adapters',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(matchers|runner|reporters|bench|test)/' },
    },
    {
      name: 'provider-sdks-in-providers-only',
      comment: 'provider SDKs are imported only in src/judges/<provider>.ts (and lazily there)',
      severity: 'error',
      from: { path: '^(src|matchers|runner|reporters)/', pathNot: '^src/judges/(openai|bedrock)[^/]*\\.ts$' },
      to: { path: 'node_modules/(openai|@aws-sdk/client-bedrock-runtime)/' },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { path: '^src/' } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^(dist|node_modules|test/e2e/fixtures)' },
  },
}
