// Jest reporter entry (`agent-verdict/jest-reporter`): merges the workers' verdict logs at the end of the run.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve, sep } from 'node:path'
import { JEST_LOG_DIR_ENV } from '../src/verdict/jest-log'
import type { ReportTest } from '../src/verdict/report'
import { runLimitSummary, stripAnsi } from '../src/report/format'
import { jestTestKey, readJestVerdictLog } from './jest-log-reader'
import { parseReporterOptions, type ReporterOptions } from './options'
import { publishReport, reportedTests } from './publish'

export type { ReporterOptions } from './options'

// The few fields of Jest's types this reporter reads; structural so the published types need no @jest/* package.
interface JestAssertion {
  fullName: string
  /** Attempts the test ran (retries + 1). */
  invocations?: number
  status: string
  duration?: number | null
  failureMessages?: string[]
}
interface JestFileResult {
  testFilePath: string
  testResults: JestAssertion[]
}
interface JestAggregatedResults {
  startTime?: number
  testResults: JestFileResult[]
}

/** The fields of Jest's global config that say the run is filtered (Jest 29 and 30 spellings). */
interface JestGlobalConfig {
  rootDir: string
  testNamePattern?: string
  testPathPatterns?: { patterns?: readonly string[] } | readonly string[]
  testPathPattern?: string
  nonFlagArgs?: readonly string[]
  onlyChanged?: boolean
  onlyFailures?: boolean
  findRelatedTests?: boolean
  shard?: { shardIndex: number; shardCount: number }
}

/** Why the run is not the whole suite (`-t`, path patterns, `-o`, `--findRelatedTests`, a shard), or undefined. */
function partialRun(config: JestGlobalConfig): string | undefined {
  if (config.testNamePattern) return `-t ${config.testNamePattern}`
  const pathPatterns = Array.isArray(config.testPathPatterns)
    ? config.testPathPatterns
    : ((config.testPathPatterns as { patterns?: readonly string[] } | undefined)?.patterns ?? [])
  const paths = [...pathPatterns, ...(config.testPathPattern ? [config.testPathPattern] : [])]
  if (paths.length > 0 || (config.nonFlagArgs?.length ?? 0) > 0)
    return `test paths ${[...new Set([...paths, ...(config.nonFlagArgs ?? [])])].join(' ')}`
  if (config.onlyChanged) return '--onlyChanged'
  if (config.onlyFailures) return '--onlyFailures'
  if (config.findRelatedTests) return '--findRelatedTests'
  if (config.shard) return `shard ${config.shard.shardIndex}/${config.shard.shardCount}`
  return undefined
}

const STATE: Record<string, ReportTest['state']> = {
  passed: 'pass',
  failed: 'fail',
  pending: 'skip',
  skipped: 'skip',
  disabled: 'skip',
  todo: 'pending',
  focused: 'pass',
}

/**
 * Prints verdicts after a Jest run and writes `agent-verdict-report.json` (plus, optionally, an HTML
 * report and a GitHub step summary). Works with any number of workers and with `--runInBand`: the
 * constructor points `AGENT_VERDICT_JEST_LOG_DIR` at a fresh temp dir that workers inherit.
 *
 * @example
 * // jest.config.js
 * export default {
 *   setupFilesAfterEnv: ['agent-verdict/jest'],
 *   reporters: ['default', ['agent-verdict/jest-reporter', { html: 'agent-verdict-report.html' }]],
 * }
 */
export default class AgentVerdictJestReporter {
  private readonly options: ReporterOptions
  private readonly rootDir: string
  private readonly logDir: string
  private readonly previousLogDir: string | undefined
  private lastError: Error | undefined
  private readonly partial: string | undefined

  constructor(globalConfig: JestGlobalConfig, reporterOptions: ReporterOptions = {}, _reporterContext?: unknown) {
    this.options = parseReporterOptions(reporterOptions)
    this.rootDir = globalConfig.rootDir
    this.partial = partialRun(globalConfig)
    this.previousLogDir = process.env[JEST_LOG_DIR_ENV]
    this.logDir = mkdtempSync(join(tmpdir(), 'agent-verdict-jest-'))
    // Set before Jest spawns workers, which copy the environment at spawn time.
    process.env[JEST_LOG_DIR_ENV] = this.logDir
  }

  onRunStart(): void {
    // Watch mode runs again after onRunComplete removed the directory.
    mkdirSync(this.logDir, { recursive: true })
    process.env[JEST_LOG_DIR_ENV] = this.logDir
  }

  async onRunComplete(_testContexts: unknown, results: JestAggregatedResults): Promise<void> {
    try {
      const log = await readJestVerdictLog(this.logDir)
      const tests: ReportTest[] = []
      for (const file of results.testResults) {
        for (const assertion of file.testResults) {
          const key = jestTestKey(file.testFilePath, assertion.fullName)
          const lines = log.entries.get(key)
          if (!lines?.length) {
            // Failed before any verdict (a replay miss, a thrown agent): publish.ts decides whether it is reported.
            if (assertion.status === 'failed')
              tests.push(toReportTest(this.rootDir, file.testFilePath, assertion, { verdicts: [] }))
            continue
          }
          // This test's lines come first (one per attempt; its last attempt decides); a later test of the same
          // full name takes the ones after them — never all of them, which hid one test's failing verdict.
          const own = lines.splice(0, Math.max(1, assertion.invocations ?? 1))
          if (lines.length === 0) log.entries.delete(key)
          tests.push(toReportTest(this.rootDir, file.testFilePath, assertion, own[own.length - 1]))
        }
      }
      for (const entry of [...log.entries.values()].flat()) {
        log.warnings.push(
          `verdicts logged for "${entry.fullName}" in ${this.display(entry.testPath)}, but Jest reported no such test; kept as pending`,
        )
        tests.push({
          file: this.display(entry.testPath),
          name: entry.fullName,
          state: 'pending',
          verdicts: entry.verdicts,
          ...(entry.traces ? { traces: entry.traces } : {}),
          ...(entry.assertions ? { assertions: entry.assertions } : {}),
        })
      }
      if (!this.options.silent) for (const w of log.warnings) process.stderr.write(`agent-verdict: ${w}\n`)
      const startedAt = results.startTime ? new Date(results.startTime) : new Date()
      const published = await publishReport({
        tests: reportedTests(tests),
        startedAt,
        runner: 'jest',
        root: this.rootDir,
        options: this.options,
        out: process.stderr,
        ...(this.partial ? { partial: this.partial } : {}),
      })
      const limitLine = runLimitSummary()
      if (limitLine && !this.options.silent) process.stderr.write(`agent-verdict: ${limitLine}\n`)
      const broken = published.gates.filter((g) => !g.ok)
      // Jest exits non-zero when a reporter reports an error: that is how a gate fails a green run.
      if (broken.length > 0)
        this.lastError = new Error(
          `agent-verdict: ${broken.length} gate(s) broken: ${broken.map((g) => g.line).join('; ')}`,
        )
    } catch (error) {
      this.lastError = error as Error
      process.stderr.write(`agent-verdict: ${(error as Error).message}\n`)
    } finally {
      rmSync(this.logDir, { recursive: true, force: true })
      if (this.previousLogDir === undefined) delete process.env[JEST_LOG_DIR_ENV]
      else process.env[JEST_LOG_DIR_ENV] = this.previousLogDir
    }
  }

  /** Jest fails the run when a reporter reports an error (e.g. the artifact could not be written). */
  getLastError(): Error | undefined {
    return this.lastError
  }

  private display(path: string): string {
    return relative(this.rootDir, resolve(path)).split(sep).join('/')
  }
}

function toReportTest(
  rootDir: string,
  testPath: string,
  assertion: JestAssertion,
  entry: Pick<ReportTest, 'verdicts' | 'traces' | 'assertions'>,
): ReportTest {
  const failure = assertion.failureMessages?.[0]
  return {
    file: relative(rootDir, resolve(testPath)).split(sep).join('/'),
    name: assertion.fullName,
    state: STATE[assertion.status] ?? 'pending',
    ...(typeof assertion.duration === 'number' ? { durationMs: assertion.duration } : {}),
    ...(assertion.status === 'failed' && failure ? { error: stripAnsi(failure).slice(0, 4000) } : {}),
    verdicts: entry.verdicts,
    ...(entry.traces ? { traces: entry.traces } : {}),
    ...(entry.assertions ? { assertions: entry.assertions } : {}),
  }
}
