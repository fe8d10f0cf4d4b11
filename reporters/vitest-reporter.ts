// Vitest reporter entry (`agent-verdict/reporter`): collects verdicts from `task.meta` at the end of the run.
// Kept light: Vitest imports reporters before it starts any worker, so the report code (zod schemas, renderers)
// loads in the background once the tests run and is awaited at the end (decision 0031).
import type { Reporter, SerializedError, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import type { ReporterOptions } from './options'

export type { ReporterOptions } from './options'

type RunModule = typeof import('./vitest-reporter-run')
let runModule: Promise<RunModule> | undefined
const loadRun = (): Promise<RunModule> => (runModule ??= import('./vitest-reporter-run'))

const isEmpty = (options: unknown): boolean =>
  options === undefined ||
  options === null ||
  (typeof options === 'object' && !Array.isArray(options) && Object.keys(options).length === 0)

/**
 * Prints verdicts after the run and writes `agent-verdict-report.json` (plus, optionally, an HTML
 * report and a GitHub step summary). Only tests with verdicts or traces are reported. Invalid options
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
  }

  // A worker has started on a file: it now loads its setup and the test file on its own, so Vitest's process
  // is mostly idle and the report code loads here at no cost to the run. Loading it earlier would delay the
  // first worker; later, during the tests, it would hold up the run-wide judge limit's grants on this thread.
  onTestModuleQueued(): void {
    void loadRun().catch(() => {})
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    errors: ReadonlyArray<SerializedError>,
    _reason: TestRunEndReason,
  ): Promise<void> {
    const { endRun } = await loadRun()
    await endRun({ testModules, errors, vitest: this.vitest, options: this.options, startedAt: this.startedAt })
  }
}
