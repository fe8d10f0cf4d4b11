// The Vitest reporter's work at the end of a run: read verdicts from task.meta, validate them, publish.
// Loaded by `agent-verdict/reporter` while the tests run (decision 0031), so Vitest's start does not wait for zod.
import { relative, sep } from 'node:path'
import type { SerializedError, TestCase, TestModule, Vitest } from 'vitest/node'
import { VERDICT_META_KEY } from '../src/verdict/meta'
import { salvageVerdictMeta } from '../src/verdict/salvage'
import type { ReportTest } from '../src/verdict/report'
import { runLimitSummary, stripAnsi } from '../src/report/format'
import { parseReporterOptions, type ReporterOptions } from './options'
import { publishReport, reportedTests } from './publish'

export { parseReporterOptions }

const STATE: Record<string, ReportTest['state']> = {
  passed: 'pass',
  failed: 'fail',
  skipped: 'skip',
  pending: 'pending',
}

/**
 * Prints the verdicts of the run's tests, writes the report files and fails the run on a broken gate.
 *
 * @example
 * await endRun({ testModules, vitest, options: {}, startedAt })
 */
export async function endRun(input: {
  testModules: ReadonlyArray<TestModule>
  errors?: ReadonlyArray<SerializedError>
  vitest: Vitest | undefined
  options: ReporterOptions
  startedAt: Date
  /** Tests already converted as they finished (see {@link convertTest}); the rest are converted here. */
  converted?: ReadonlyMap<TestCase, Converted>
}): Promise<void> {
  const { vitest, options } = input
  const root = vitest?.config.root ?? process.cwd()
  const warnings: string[] = []
  const tests: ReportTest[] = []
  for (const module of input.testModules) {
    for (const testCase of module.children.allTests()) {
      const early = input.converted?.get(testCase)
      // A verdict attached after the test's result (a call settling late) replaces the meta: convert it again.
      const { test, warning } = early && early.meta === rawMeta(testCase) ? early : convertTest(testCase, root)
      if (warning) warnings.push(warning)
      if (test) tests.push(test)
    }
  }
  const out = vitest?.logger.outputStream ?? process.stdout
  if (!options.silent)
    for (const w of warnings) (vitest?.logger.errorStream ?? process.stderr).write(`agent-verdict: ${w}\n`)
  const partial =
    options.gates && vitest ? await partialRun(vitest, new Set(input.testModules.map((m) => m.moduleId))) : undefined
  const published = await publishReport({
    tests: reportedTests(tests),
    startedAt: input.startedAt,
    runner: 'vitest',
    root,
    options,
    out,
    ...(partial ? { partial } : {}),
  })
  const limitLine = runLimitSummary()
  if (limitLine && !options.silent) out.write(`agent-verdict: ${limitLine}\n`)
  // Vitest only ever raises the exit code, so this survives its own end-of-run bookkeeping.
  if (published.gates.some((g) => !g.ok)) process.exitCode = 1
}

/**
 * Why the run is not the whole suite, or undefined: a test name pattern (`-t`), a shard, or fewer test files
 * than the projects include (file filters, `--changed`, `--related`).
 */
async function partialRun(vitest: Vitest, ran: ReadonlySet<string>): Promise<string | undefined> {
  const config = vitest.config as { testNamePattern?: RegExp; shard?: { index: number; count: number } }
  if (config.testNamePattern) return `-t ${String(config.testNamePattern)}`
  if (config.shard) return `shard ${config.shard.index}/${config.shard.count}`
  try {
    const all = new Set((await vitest.globTestSpecifications()).map((s) => s.moduleId))
    const left = [...all].filter((id) => !ran.has(id)).length
    if (left > 0) return `${all.size - left} of ${all.size} test files`
  } catch {
    // Files that cannot be listed: the run is taken as whole, as before.
  }
  return undefined
}

/** One finished test as the report holds it (none without verdicts or traces), and why its meta was ignored. */
export interface Converted {
  test?: ReportTest
  warning?: string
  /** The task.meta value it was converted from. */
  meta: unknown
}

/**
 * Converts one finished test for the report: its verdicts from task.meta, validated. The reporter calls it
 * as each test finishes, while Vitest's process waits for the workers, so the end of the run does not.
 *
 * @example
 * converted.set(testCase, convertTest(testCase, vitest.config.root))
 */
export function convertTest(testCase: TestCase, root: string): Converted {
  const warnings: string[] = []
  const meta = rawMeta(testCase)
  const test = toReportTest(testCase, meta, root, warnings)
  return { meta, ...(test ? { test } : {}), ...(warnings[0] ? { warning: warnings[0] } : {}) }
}

const rawMeta = (testCase: TestCase): unknown => (testCase.meta() as Record<string, unknown>)[VERDICT_META_KEY]

function toReportTest(testCase: TestCase, raw: unknown, root: string, warnings: string[]): ReportTest | undefined {
  // A failed test without verdicts is kept for now: it is reported when it ran in an eval file or beside tests
  // that used agent-verdict (publish.ts decides, once every test is known).
  if (raw === undefined && testCase.result().state !== 'failed') return undefined
  // An invalid verdict is kept as an unjudgeable one: dropped, it read as absent and a gate passed on it.
  const meta = salvageVerdictMeta(raw ?? { verdicts: [] })
  if (meta.issues.length > 0)
    warnings.push(
      `invalid task.meta.${VERDICT_META_KEY} of "${testCase.fullName}" at ${meta.issues[0]}: its invalid verdicts count as unjudgeable`,
    )
  const result = testCase.result()
  const error = result.errors?.[0]
  const duration = testCase.diagnostic()?.duration
  return {
    file: relative(root, testCase.module.moduleId).split(sep).join('/'),
    name: testCase.fullName,
    state: STATE[result.state] ?? 'pending',
    ...(duration !== undefined ? { durationMs: duration } : {}),
    ...(result.state === 'failed' && error ? { error: stripAnsi(error.message ?? String(error)).slice(0, 4000) } : {}),
    verdicts: meta.meta.verdicts,
    ...(meta.meta.traces ? { traces: meta.meta.traces } : {}),
    ...(meta.meta.assertions ? { assertions: meta.meta.assertions } : {}),
  }
}
