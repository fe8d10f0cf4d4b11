// Vitest reporter entry (`agent-verdict/reporter`): collects verdicts from `task.meta` at the end of the run.
import { relative, sep } from 'node:path'
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { TestVerdictMetaSchema, VERDICT_META_KEY } from '../src/verdict/meta'
import type { ReportTest } from '../src/verdict/report'
import { runLimitSummary, stripAnsi } from '../src/report/format'
import { parseReporterOptions, type ReporterOptions } from './options'
import { publishReport, withVerdicts } from './publish'

export type { ReporterOptions } from './options'

const STATE: Record<string, ReportTest['state']> = {
  passed: 'pass',
  failed: 'fail',
  skipped: 'skip',
  pending: 'pending',
}

/**
 * Prints verdicts after the run and writes `agent-verdict-report.json` (plus, optionally, an HTML
 * report and a GitHub step summary). Only tests with verdicts or traces are reported.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: {
 *   setupFiles: ['agent-verdict/vitest'],
 *   reporters: ['default', ['agent-verdict/reporter', { outputFile: 'reports/verdicts.json', html: 'reports/verdicts.html' }]],
 * }})
 */
export default class AgentVerdictReporter implements Reporter {
  private readonly options: ReporterOptions
  private vitest?: Vitest
  private startedAt = new Date()

  constructor(options: ReporterOptions = {}) {
    this.options = parseReporterOptions(options)
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
    this.startedAt = new Date()
  }

  onTestRunStart(): void {
    this.startedAt = new Date()
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    _errors: ReadonlyArray<SerializedError>,
    _reason: TestRunEndReason,
  ): Promise<void> {
    const root = this.vitest?.config.root ?? process.cwd()
    const warnings: string[] = []
    const tests: ReportTest[] = []
    for (const module of testModules) {
      for (const testCase of module.children.allTests()) {
        const test = toReportTest(testCase, root, warnings)
        if (test) tests.push(test)
      }
    }
    const out = this.vitest?.logger.outputStream ?? process.stdout
    if (!this.options.silent)
      for (const w of warnings) (this.vitest?.logger.errorStream ?? process.stderr).write(`agent-verdict: ${w}\n`)
    const published = await publishReport({
      tests: withVerdicts(tests),
      startedAt: this.startedAt,
      runner: 'vitest',
      root,
      options: this.options,
      out,
    })
    const limitLine = runLimitSummary()
    if (limitLine && !this.options.silent) out.write(`agent-verdict: ${limitLine}\n`)
    // Vitest only ever raises the exit code, so this survives its own end-of-run bookkeeping.
    if (published.gates.some((g) => !g.ok)) process.exitCode = 1
  }
}

function toReportTest(testCase: TestCase, root: string, warnings: string[]): ReportTest | undefined {
  const raw = (testCase.meta() as Record<string, unknown>)[VERDICT_META_KEY]
  if (raw === undefined) return undefined
  const meta = TestVerdictMetaSchema.safeParse(raw)
  if (!meta.success) {
    const issue = meta.error.issues[0]
    warnings.push(
      `ignored invalid task.meta.${VERDICT_META_KEY} of "${testCase.fullName}" at ${issue.path.join('.')}: ${issue.message}`,
    )
    return undefined
  }
  const result = testCase.result()
  const error = result.errors?.[0]
  const duration = testCase.diagnostic()?.duration
  return {
    file: relative(root, testCase.module.moduleId).split(sep).join('/'),
    name: testCase.fullName,
    state: STATE[result.state] ?? 'pending',
    ...(duration !== undefined ? { durationMs: duration } : {}),
    ...(result.state === 'failed' && error ? { error: stripAnsi(error.message ?? String(error)).slice(0, 4000) } : {}),
    verdicts: meta.data.verdicts,
    ...(meta.data.traces ? { traces: meta.data.traces } : {}),
    ...(meta.data.assertions ? { assertions: meta.data.assertions } : {}),
  }
}
