// Vitest reporter entry (`agent-verdict/reporter`): collects verdicts from `task.meta` at the end of the run.
// Kept light: Vitest imports reporters before it starts any worker, so the report code (zod schemas, renderers)
// loads in the background once the tests run and is awaited at the end (decision 0031).
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import type { ReporterOptions } from './options'
import type { Converted } from './vitest-reporter-run'

export type { ReporterOptions } from './options'

type RunModule = typeof import('./vitest-reporter-run')
let runModule: Promise<RunModule> | undefined
let runLoaded: RunModule | undefined
const loadRun = (): Promise<RunModule> =>
  (runModule ??= import('./vitest-reporter-run').then((loaded) => (runLoaded = loaded)))

/** After the first test starts: past its judge calls' grants, well before their answers. */
const PRELOAD_DELAY_MS = 50

const isEmpty = (options: unknown): boolean =>
  options === undefined ||
  options === null ||
  (typeof options === 'object' && !Array.isArray(options) && Object.keys(options).length === 0)

/**
 * Prints verdicts after the run and writes `agent-verdict-report.json` (plus, optionally, an HTML
 * report and a GitHub step summary). Tests that used agent-verdict are reported, and failed tests of eval files
 * or beside them (with their errors). Invalid options
 * fail the run when it starts (`onInit`), naming the option.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: {
 *   setupFiles: ['agent-verdict/vitest'],
 *   reporters: ['default', ['agent-verdict/reporter', { outputFile: 'reports/verdicts.json', html: 'reports/verdicts.html' }]],
 * }})
 */
export default class AgentVerdictReporter implements Reporter {
  private options: ReporterOptions
  private readonly rawOptions: unknown
  private vitest?: Vitest
  private startedAt = new Date()
  private loadScheduled = false
  /** Tests converted for the report as they finished (once the report code has loaded). */
  private converted = new Map<TestCase, Converted>()

  constructor(options: ReporterOptions = {}) {
    // The defaults need no validation; anything else is checked in onInit, where the checker can be loaded.
    this.rawOptions = options
    this.options = {}
  }

  async onInit(vitest: Vitest): Promise<void> {
    this.vitest = vitest
    this.startedAt = new Date()
    if (!isEmpty(this.rawOptions)) this.options = (await loadRun()).parseReporterOptions(this.rawOptions)
  }

  onTestRunStart(): void {
    this.startedAt = new Date()
    this.converted = new Map()
  }

  // The report code loads while the tests run, when Vitest's process mostly waits for the workers: at its
  // start it would hold up the workers' first files (this process transforms them), and right at the first
  // test it would hold up the run-wide judge limit's first grants, which this process answers. A judge call
  // takes longer than the delay, so the load falls between the first grants and the next (decision 0031).
  onTestCaseReady(): void {
    if (this.loadScheduled) return
    this.loadScheduled = true
    setTimeout(() => void loadRun().catch(() => {}), PRELOAD_DELAY_MS).unref()
  }

  onTestCaseResult(testCase: TestCase): void {
    if (runLoaded)
      this.converted.set(testCase, runLoaded.convertTest(testCase, this.vitest?.config.root ?? process.cwd()))
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    errors: ReadonlyArray<SerializedError>,
    _reason: TestRunEndReason,
  ): Promise<void> {
    const { endRun } = await loadRun()
    await endRun({
      testModules,
      errors,
      vitest: this.vitest,
      options: this.options,
      startedAt: this.startedAt,
      converted: this.converted,
    })
  }
}
