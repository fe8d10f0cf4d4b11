// `agent-verdict/vitest-plugin` — one line in `plugins`: the setup entry, the reporter, and eval files
// that run their judge assertions concurrently. Runs in Vitest's main process; kept tiny (no SDK, no zod).
import { defaultInclude } from 'vitest/config'
import type { Vite, VitestPluginContext } from 'vitest/node'
import { concurrencyFromEnv, DEFAULT_JUDGE_CONCURRENCY } from '../src/config/limits'
import { checkRecordingOptions, type RecordingOptions } from '../src/config/recording'
import { DEFAULT_EVAL_FILES, PLUGIN_SETTINGS_KEY, type PluginSettings } from './eval-files'
import type { ReporterOptions } from '../reporters/options'
import { warmSetupWhenWorkerStarts, type WarmableProject } from './warm-setup'

export interface AgentVerdictPluginOptions {
  /**
   * Test files that are evaluations, relative to the project root; added to `include`. Their tests run concurrently (as if
   * each were `test.concurrent`; `test.sequential`/`describe.sequential` still opt out) with the
   * judge-friendly `testTimeout`. Other test files are left exactly as they are. Default `**\/*.eval.{ts,mts,js,mjs}`.
   */
  evalFiles?: string | string[]
  /**
   * How many tests run at once (Vitest's `maxConcurrency`), unless the config sets `maxConcurrency`: the run's
   * judge limit, `AGENT_VERDICT_CONCURRENCY` or 8, so tests at once and judge calls at once match.
   */
  concurrency?: number
  /** Timeout of each test in an eval file, in ms, unless the config (or `--testTimeout`) sets one. Default 180 000. */
  testTimeout?: number
  /** Options for `agent-verdict/reporter`, or `false` to leave reporters alone. */
  reporter?: ReporterOptions | false
  /**
   * Agent recordings of eval files (docs/recordings.md): the agent's own HTTP calls recorded beside the verdict
   * cassette and replayed in CI. On by default; options narrow them (`hosts`, `skipHosts`, `ignoreBodyFields`),
   * `false` turns them off (so does `AGENT_VERDICT_RECORDINGS=off`).
   */
  recordings?: RecordingOptions | false
}

/** Vitest's own default `testTimeout`: a resolved value other than this was set by the user. */
const VITEST_DEFAULT_TIMEOUT = 5_000
/** Above one judge call's worst case: a 60 s attempt timeout plus the 60 s retry wait budget, with room for a second assertion. */
export const EVAL_TEST_TIMEOUT = 180_000
/**
 * Tests at once in an eval file by default: the judges' own default limit (src/config), so tests at once and judge
 * calls at once match. Twice as many was tried (decision 0031): a call then waited ready behind each one in flight,
 * but suite.default.ratio moved within its noise (about −0.02) while a 2 s outage caught twice the calls (60 answers
 * of 503 instead of 30) in retry back-off.
 */
export const DEFAULT_CONCURRENCY = DEFAULT_JUDGE_CONCURRENCY
/** The light setup entry (matchers load while the test file loads); `agent-verdict/vitest` in a config does the same job. */
const SETUP = 'agent-verdict/vitest-setup'
const SETUP_ENTRIES = [SETUP, 'agent-verdict/vitest']
/** Starts the run-wide judge limit (one coordinator for all workers, decision 0023). */
const GLOBAL_SETUP = 'agent-verdict/global-setup'
const REPORTER = 'agent-verdict/reporter'

function positiveInt(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new TypeError(`agentVerdict({ ${name} }) must be a positive integer, got ${JSON.stringify(value)}`)
  }
  return value
}

const toArray = <T>(value: T | readonly T[] | undefined | null): T[] =>
  value == null ? [] : Array.isArray(value) ? [...value] : [value as T]

/**
 * The Vitest plugin: adds `agent-verdict/vitest-setup` to `setupFiles` and `agent-verdict/reporter` to the
 * reporters (once, whatever the config or `--reporter` says), sets `maxConcurrency` to the judge's limit
 * unless configured, and makes the tests of eval files (`**\/*.eval.{ts,mts,js,mjs}`) run concurrently
 * with a judge-friendly timeout. Verdicts land on the test that made the call whichever `expect` it uses.
 *
 * @example
 * // vitest.config.ts
 * import { defineConfig } from 'vitest/config'
 * import { agentVerdict } from 'agent-verdict/vitest-plugin'
 * export default defineConfig({ plugins: [agentVerdict()] })
 */
export function agentVerdict(options: AgentVerdictPluginOptions = {}): Vite.Plugin {
  const evalFiles = options.evalFiles === undefined ? DEFAULT_EVAL_FILES : toArray(options.evalFiles)
  if (evalFiles.length === 0 || evalFiles.some((g) => typeof g !== 'string' || g.trim() === '')) {
    throw new TypeError(
      `agentVerdict({ evalFiles }) must be a glob or a non-empty list of globs, e.g. '**/*.eval.ts'; got ${JSON.stringify(options.evalFiles)}`,
    )
  }
  const concurrency = positiveInt(options.concurrency ?? concurrencyFromEnv() ?? DEFAULT_CONCURRENCY, 'concurrency')
  const testTimeout = positiveInt(options.testTimeout ?? EVAL_TEST_TIMEOUT, 'testTimeout')
  const recordings =
    options.recordings === false ? false : checkRecordingOptions(options.recordings, 'agentVerdict({ recordings })')
  let userTimeout = false

  return {
    name: 'agent-verdict',
    config(config) {
      const test = ((config as { test?: Record<string, unknown> }).test ??= {})
      const setupFiles = toArray(test.setupFiles as string | string[] | undefined)
      // Ours first, so the user's setup files can already use the matchers; never twice (old configs list
      // `agent-verdict/vitest`, which does the same job).
      if (!setupFiles.some((f) => SETUP_ENTRIES.includes(f))) test.setupFiles = [SETUP, ...setupFiles]
      // One judge limit for the whole run, not one per worker.
      const globalSetup = toArray(test.globalSetup as string | string[] | undefined)
      if (!globalSetup.includes(GLOBAL_SETUP)) test.globalSetup = [GLOBAL_SETUP, ...globalSetup]
      // Eval files are tests too: Vitest's own include (`*.test.*`, `*.spec.*`) would not find `*.eval.ts`.
      const include = test.include === undefined ? [...defaultInclude] : toArray(test.include as string | string[])
      test.include = [...include, ...evalFiles.filter((g) => !include.includes(g))]
      if (test.maxConcurrency === undefined) test.maxConcurrency = concurrency
      userTimeout = test.testTimeout !== undefined
    },
    configureVitest({ vitest, project }: VitestPluginContext) {
      const settings: PluginSettings = { evalFiles, root: project.config.root, recordings }
      if (!userTimeout && project.config.testTimeout === VITEST_DEFAULT_TIMEOUT) settings.testTimeout = testTimeout
      project.provide(PLUGIN_SETTINGS_KEY as never, settings as never)
      // Our setup entry, resolved to its file in node_modules, transformed while the first worker starts.
      warmSetupWhenWorkerStarts(
        project as unknown as WarmableProject,
        (file) => /[\\/]agent-verdict[\\/]dist[\\/]vitest(-setup)?\.c?js$/.test(file),
        // The run's judge calls leave from this process (decision 0032): its SDK loads while the worker starts.
        () => void import('../src/judges/prewarm').then((m) => m.prewarmJudgeHost()),
      )
      if (options.reporter === false) return
      // Resolved reporters are [name, options] pairs; `--reporter` on the command line replaced the config's.
      const reporters = vitest.config.reporters as unknown as Array<[string, unknown]>
      if (
        !reporters.some(
          ([name]) => typeof name === 'string' && /agent-verdict[\\/](reporter|dist[\\/]reporter)/.test(name),
        )
      )
        reporters.push([REPORTER, options.reporter ?? {}])
    },
  }
}

export default agentVerdict
