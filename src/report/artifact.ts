// The `agent-verdict-report.json` artifact: build from tests, validate + write, read, merge shards.
import { readFile } from 'node:fs/promises'
import { callsOf, countAssertions } from '../verdict/assertion'
import {
  READABLE_REPORT_VERSIONS,
  REPORT_SCHEMA_VERSION,
  ReportSchema,
  type Report,
  type ReportTest,
  type ReportTotals,
} from '../verdict/report'
import { writeFileAtomic } from '../files/atomic'

/** Input of {@link buildReport}. */
export interface BuildReportInput {
  tests: readonly ReportTest[]
  startedAt: Date | string
  finishedAt?: Date | string
  runner?: 'vitest' | 'jest'
  /** `provider:model` of the configured judge, or null when none. */
  judge: string | null
  /** Cassette mode of the run (`auto`, `replay`, `record`, `live`). */
  mode: string
}

/**
 * The run's numbers, computed once here; every output (terminal, JSON, HTML, GitHub summary, JUnit)
 * shows these and never recounts.
 *
 * - tests / failedTests: the report's tests and those the runner failed (before any verdict too);
 * - assertions / failed: matcher assertions and the failed ones — a passing `.not` is not a failure;
 * - verdicts / judgedFail / unjudgeable: verdicts, those the judge judged `fail`, those with no verdict;
 * - judgeCalls: every request that reached a judge (each sample, re-ask and retry), of which
 *   judgeRetries and judgeReasks; cachedCalls: requests replayed from cassettes;
 * - tokens: input + output tokens of the calls actually made (replays cost nothing);
 * - costUsd: sum of the known costs of the calls made; `null` when calls were made and none had a
 *   known price, or when any verdict of calls made has unknown token counts (`tokens.invalid`: the judge
 *   sent counts that are not counts, or the verdict reached the reporter invalid); `0` when no call was
 *   made at all (a fully replayed run really costs nothing).
 *
 * @example
 * computeTotals(report.tests).judgeCalls // 0 on a replayed run
 */
export function computeTotals(tests: readonly ReportTest[]): ReportTotals {
  const totals: ReportTotals = {
    tests: tests.length,
    failedTests: tests.filter((t) => t.state === 'fail').length,
    assertions: 0,
    failed: 0,
    verdicts: 0,
    judgedFail: 0,
    unjudgeable: 0,
    judgeCalls: 0,
    judgeRetries: 0,
    judgeReasks: 0,
    cachedCalls: 0,
    tokens: 0,
    costUsd: null,
  }
  let cost = 0
  let anyCostKnown = false
  let usageUnknown = false
  for (const test of tests) {
    const counted = countAssertions(test.verdicts, test.assertions)
    totals.assertions += counted.assertions
    totals.failed += counted.failed
    for (const v of test.verdicts) {
      totals.verdicts++
      if (v.outcome === 'fail') totals.judgedFail++
      if (v.outcome === 'unjudgeable') totals.unjudgeable++
      if (!v.judge) continue
      const calls = callsOf(v.judge)
      totals.judgeCalls += calls.made
      totals.judgeRetries += calls.retries
      totals.judgeReasks += calls.reasks
      totals.cachedCalls += calls.replayed
      if (calls.made === 0) continue
      totals.tokens += v.judge.tokens.input + v.judge.tokens.output
      if (v.judge.tokens.invalid) usageUnknown = true
      if (typeof v.judge.costUsd === 'number') {
        cost += v.judge.costUsd
        anyCostKnown = true
      }
    }
  }
  totals.costUsd = usageUnknown ? null : anyCostKnown ? roundUsd(cost) : totals.judgeCalls === 0 ? 0 : null
  return totals
}

// Summing many small float prices leaves noise like 0.30000000000000004 in the artifact.
function roundUsd(n: number): number {
  return Math.round(n * 1e8) / 1e8
}

function iso(d: Date | string): string {
  return typeof d === 'string' ? d : d.toISOString()
}

/**
 * Assembles a report artifact with totals computed from the tests' verdicts.
 *
 * @example
 * const report = buildReport({ tests, startedAt: new Date(), runner: 'vitest', judge: 'openai:gpt-4.1', mode: 'auto' })
 */
export function buildReport(input: BuildReportInput): Report {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    run: {
      startedAt: iso(input.startedAt),
      ...(input.finishedAt !== undefined ? { finishedAt: iso(input.finishedAt) } : {}),
      ...(input.runner ? { runner: input.runner } : {}),
      judge: input.judge,
      mode: input.mode,
      totals: computeTotals(input.tests),
    },
    tests: [...input.tests],
  }
}

/**
 * Validates `report` with `ReportSchema`, then writes it (pretty JSON, `mkdir -p`, atomic rename).
 * Returns the absolute path written. A validation failure is a bug in whoever built the report.
 *
 * @example
 * const path = await writeReport('agent-verdict-report.json', report)
 */
export async function writeReport(path: string, report: Report): Promise<string> {
  const parsed = ReportSchema.safeParse(report)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(
      `agent-verdict: the report does not match its own schema at ${issue.path.join('.') || '(root)'}: ${issue.message}. ` +
        `This is a bug in agent-verdict or in a matcher that stored an invalid verdict; please report it with the test that produced it.`,
    )
  }
  return writeFileAtomic(path, JSON.stringify(parsed.data, null, 2) + '\n')
}

/**
 * Reads and validates a report artifact (e.g. a CI shard's).
 *
 * @example
 * const report = await readReport('shard-1/agent-verdict-report.json')
 */
export async function readReport(path: string): Promise<Report> {
  let json: unknown
  try {
    json = JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    throw new Error(
      `agent-verdict: cannot read report ${path}: ${(error as Error).message}. Pass the agent-verdict-report.json a test run wrote.`,
    )
  }
  return parseReport(json, path)
}

/**
 * A report artifact's parsed JSON, validated, any readable schema version brought to the current one;
 * throws naming `path` and what to do.
 *
 * @example
 * const report = parseReport(JSON.parse(text), 'base-report.json')
 */
export function parseReport(json: unknown, path: string): Report {
  const version = (json as { schemaVersion?: unknown } | null)?.schemaVersion
  if (typeof version !== 'number' || !READABLE_REPORT_VERSIONS.includes(version)) {
    throw new Error(
      `agent-verdict: ${path} has schemaVersion ${String(version)}, this version reads ${READABLE_REPORT_VERSIONS.join(' and ')}. Re-run the tests with this agent-verdict version to regenerate it.`,
    )
  }
  const parsed = ReportSchema.safeParse(upgrade(json as { schemaVersion: number; run?: unknown; tests?: unknown }))
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(
      `agent-verdict: ${path} is not a valid report at ${issue.path.join('.') || '(root)'}: ${issue.message}. Regenerate it or fix the file.`,
    )
  }
  return parsed.data
}

/**
 * A version-1 report had other totals (`failed` counted verdicts judged `fail`, `.not` passes included)
 * and verdicts without `assertion`: its totals are recomputed the version-2 way. Anything else is left
 * for the schema to judge.
 */
function upgrade(json: { schemaVersion: number; run?: unknown; tests?: unknown }): unknown {
  // Version-2 reports written before the test counts existed get them from their tests.
  const totals = (json.run as { totals?: Record<string, unknown> } | undefined)?.totals
  if (
    json.schemaVersion === REPORT_SCHEMA_VERSION &&
    (typeof totals !== 'object' || totals === null || 'failedTests' in totals)
  )
    return json
  const tests = ReportSchema.shape.tests.safeParse(json.tests)
  if (!tests.success || typeof json.run !== 'object' || json.run === null) return json
  return { ...json, schemaVersion: REPORT_SCHEMA_VERSION, run: { ...json.run, totals: computeTotals(tests.data) } }
}

/**
 * Merges CI shards: tests concatenated in order, totals recomputed, earliest start and latest finish;
 * judge/mode/runner kept when all shards agree, otherwise listed (`a, b`).
 *
 * @example
 * const merged = mergeReports([await readReport('a.json'), await readReport('b.json')])
 */
export function mergeReports(reports: readonly Report[]): Report {
  if (reports.length === 0) throw new Error('agent-verdict: mergeReports needs at least one report.')
  const tests = reports.flatMap((r) => r.tests)
  const startedAt = reports.map((r) => r.run.startedAt).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a))
  const finished = reports.map((r) => r.run.finishedAt).filter((f): f is string => f !== undefined)
  const runners = unique(reports.map((r) => r.run.runner).filter((r) => r !== undefined))
  const judges = unique(reports.map((r) => r.run.judge).filter((j): j is string => j !== null))
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    run: {
      startedAt,
      ...(finished.length > 0
        ? { finishedAt: finished.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a)) }
        : {}),
      ...(runners.length === 1 ? { runner: runners[0] } : {}),
      judge: judges.length === 0 ? null : judges.join(', '),
      mode: unique(reports.map((r) => r.run.mode)).join(', '),
      totals: computeTotals(tests),
    },
    tests,
  }
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)]
}
