// The end of a run, shared by the Vitest and Jest reporters: print, write artifact, HTML, step summary.
import { relative, resolve, sep } from 'node:path'
import { registerHeaderSecrets, scrubDeep, scrubSecrets } from '../src/config/secrets'
import type { Report, ReportTest } from '../src/verdict/report'
import { buildReport, writeReport } from '../src/report/artifact'
import { evaluateGates, type GateResult } from '../src/report/gates'
import { writeHtmlReport } from '../src/report/html-report'
import { exportOtlp } from '../src/report/otlp-export'
import { writeFileAtomic } from '../src/files/atomic'
import { DEFAULT_OUTPUT_FILE, runInfoFromEnv, type ReporterOptions } from './options'
import { appendGithubSummary } from '../src/report/render-github-summary'
import { renderJunit } from '../src/report/render-junit'
import { renderTerminal, terminalOptionsFor } from '../src/report/render-terminal'

export interface PublishInput {
  /** Tests to report; the reporters pass only those with verdicts or traces. */
  tests: ReportTest[]
  startedAt: Date
  runner: 'vitest' | 'jest'
  /** Vitest root / Jest rootDir: base of `outputFile`, `html` and `junit`, and of relative image paths. */
  root: string
  options: ReporterOptions
  /** Where the terminal section goes (colours and width follow it). */
  out: { write(text: string): unknown; isTTY?: boolean; columns?: number }
  env?: NodeJS.ProcessEnv
  /** Why this run is not the whole suite (`-t "refund"`, `2 of 5 test files`), when it is filtered. */
  partial?: string
}

export interface PublishResult {
  report: Report
  artifactPath: string
  htmlPath?: string
  junitPath?: string
  /** Where the OTLP export went: the file path, or the endpoint (credentials redacted). */
  otlpTarget?: string
  summaryPath?: string
  /** Every configured gate's result (empty without `gates`); the reporter fails the run when one broke. */
  gates: GateResult[]
  /** The note printed instead, when gates are configured and skipped on a filtered run. */
  gatesSkipped?: string
}

/**
 * Builds the report, prints the terminal section (unless `silent`), writes the JSON artifact and,
 * when configured, the HTML report, the JUnit XML and the GitHub step summary.
 *
 * @example
 * await publishReport({ tests, startedAt, runner: 'vitest', root, options: {}, out: process.stdout })
 */
export async function publishReport(input: PublishInput): Promise<PublishResult> {
  const env = input.env ?? process.env
  const info = runInfoFromEnv(env)
  // Last line of defence: every output below is rendered from this one scrubbed report (decision 0017).
  const report = scrubDeep(
    buildReport({
      tests: input.tests,
      startedAt: input.startedAt,
      finishedAt: new Date(),
      runner: input.runner,
      judge: info.judge ?? judgesOf(input.tests),
      mode: info.mode,
    }),
  )
  const say = (text: string) => {
    if (!input.options.silent) input.out.write(scrubSecrets(text))
  }
  say('\n' + renderTerminal(report, terminalOptionsFor(input.out, env)))
  const artifactPath = await writeReport(resolve(input.root, input.options.outputFile ?? DEFAULT_OUTPUT_FILE), report)
  say(`agent-verdict: report written to ${display(artifactPath)}\n`)
  // A filtered run's verdicts are a part of the suite's: its gates would fail on what filtering left out.
  const skipGates =
    input.options.gates !== undefined && input.partial !== undefined && input.options.gatesOnPartialRun !== 'apply'
  const result: PublishResult = {
    report,
    artifactPath,
    gates: input.options.gates && !skipGates ? evaluateGates(report, input.options.gates) : [],
    ...(skipGates
      ? {
          gatesSkipped: `gates skipped: this run is filtered (${input.partial}), so its verdicts are not the suite's. Run the whole suite, check a full report with \`agent-verdict report gate\`, or set the reporter option gatesOnPartialRun: 'apply' to gate the verdicts that ran.`,
        }
      : {}),
  }
  if (input.options.html) {
    result.htmlPath = await writeHtmlReport(resolve(input.root, input.options.html), report, { baseDir: input.root })
    say(`agent-verdict: HTML report written to ${display(result.htmlPath)}\n`)
  }
  if (input.options.junit) {
    result.junitPath = await writeFileAtomic(resolve(input.root, input.options.junit), renderJunit(report))
    say(`agent-verdict: JUnit XML written to ${display(result.junitPath)}\n`)
  }
  if (input.options.otlp) {
    // Observability, not a verdict: a collector that is down is reported, it does not fail the run.
    registerHeaderSecrets(input.options.otlp.headers)
    try {
      result.otlpTarget = await exportOtlp(report, input.options.otlp, input.root)
      say(
        `agent-verdict: verdicts exported as OTLP to ${input.options.otlp.file ? display(result.otlpTarget) : result.otlpTarget}\n`,
      )
    } catch (error) {
      input.out.write(scrubSecrets(`agent-verdict: ${error instanceof Error ? error.message : String(error)}\n`))
    }
  }
  if (input.options.githubSummary ?? Boolean(env.GITHUB_STEP_SUMMARY)) {
    result.summaryPath = (await appendGithubSummary(report, env)) ?? undefined
  }
  if (result.gatesSkipped) say(`agent-verdict: ${result.gatesSkipped}\n`)
  // A broken gate fails the run, so it is printed even when silent: a red run must say why.
  for (const g of result.gates) if (!g.ok || !input.options.silent) input.out.write(`agent-verdict: ${g.line}\n`)
  return result
}

/** Without AGENT_VERDICT_JUDGE (judge configured in code), the verdicts themselves say who judged. */
function judgesOf(tests: readonly ReportTest[]): string | null {
  const ids = new Set<string>()
  for (const t of tests) for (const v of t.verdicts) if (v.judge) ids.add(`${v.judge.provider}:${v.judge.model}`)
  return ids.size === 0 ? null : [...ids].sort().join(', ')
}

function display(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel && !rel.startsWith('..') ? rel.split(sep).join('/') : path
}

const usedAgentVerdict = (t: ReportTest) =>
  t.verdicts.length > 0 || (t.traces?.length ?? 0) > 0 || (t.assertions?.length ?? 0) > 0

/** An eval file by the plugin's default name (`*.eval.ts` and the like). */
const EVAL_FILE = /\.eval\.[cm]?[jt]sx?$/

/**
 * Keeps the tests the artifact is about: those that used agent-verdict (verdicts, traces or matcher
 * assertions, a matcher that threw included), and every failed test of an eval file (`*.eval.*`) or of a
 * file where another test used agent-verdict — a test that failed before any verdict (a thrown agent) is
 * still a failed evaluation, and the report's count of failed tests must be the runner's.
 *
 * @example
 * reportedTests(tests).filter((t) => t.state === 'fail').length // the runner's failed evaluations
 */
export function reportedTests(tests: readonly ReportTest[]): ReportTest[] {
  const evalFiles = new Set(tests.filter(usedAgentVerdict).map((t) => t.file))
  return tests.filter(
    (t) => usedAgentVerdict(t) || (t.state === 'fail' && (evalFiles.has(t.file) || EVAL_FILE.test(t.file))),
  )
}
