// `agent-verdict diagnose`: load traces, run the deterministic detectors (and, with a judge, the span-level
// and agent-level judge passes), print the span tree with findings.
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { UsageError, usageLine, usageMessage } from './args'
import { fittedJudge } from './judge-setup'
import { scrubDeep } from '../config/secrets'
import type { Diagnosis } from '../diagnosis/types'
import { JudgeAbortError, JudgeConfigError } from '../judges/errors'
import type { Judge } from '../judges/types'
import { detect } from '../metrics/detectors/index'
import type { Finding } from '../metrics/detectors/finding'
import { TraceFormatError } from '../trace/errors'
import { loadTraceFile } from '../trace/load'
import type { Trace } from '../trace/trace'
import {
  DIAGNOSE_SCHEMA_VERSION,
  DiagnoseReportSchema,
  JUDGE_METRICS,
  NO_JUDGE_MESSAGE,
  countTrace,
  emptySummary,
  traceEntry,
  type DiagnoseReport,
  type DiagnoseSummary,
  type DiagnoseTrace,
} from '../diagnosis/diagnose-report'
import { costLine, diagnoseWithProgress, judgeMarks, renderJudgeSummary } from './diagnose-judge'
import { exportDiagnoses } from './diagnose-otlp'
import { OptionError, parseBudget, parsePolicy, parseSelect } from './diagnose-options'
import { terminalSafe } from '../verdict/safe-text'
import { columns, shortenLeft, wrapBlock } from './fit-text'
import { TREE_LEGEND, renderTraceTree } from './render-tree'
import { scrubbedStream } from './scrubbed-output'
import { expandTraceArgs } from './trace-files'

export const DIAGNOSE_USAGE = `Usage: agent-verdict diagnose <files|dirs|globs…> [--format text|json] [--json out.json] [--full]
                               [--judge <spec>] [--select llm,tool] [--policy <policy>] [--budget 16000] [--no-agent]
                               [--otlp <endpoint|file>]

Loads agent traces (OTLP JSON/JSONL, OpenInference/TRAIL JSON; directories are searched for
**/*.{json,jsonl}), runs the deterministic detectors (errors mapped to TRAIL categories, tools that
returned error pages, repeated identical tool calls) and prints each trace's span tree with the
findings marked ✗. With a judge configured (--judge or AGENT_VERDICT_JUDGE) it also judges every
selected leaf span (one call each, within the token budget), propagates failures up the tree and
runs the agent-level metrics (plan efficiency, tool coverage, tool abuse, completeness).

Options:
  --format text|json  text (default) or the JSON report on stdout
  --json <file>       also write the JSON report to <file>
  --full              print every span of long traces (default: fold clean subtrees)
  --judge <spec>      openai:MODEL | bedrock:MODEL_ID | openai-compatible:BASE_URL#MODEL
                      (default: AGENT_VERDICT_JUDGE; none → deterministic detectors only)
                      options after the model: ;context=8k (a local server's context: prompts fit it),
                      ;concurrency=2, ;maxOutputTokens=N (docs/local-judges.md)
  --select <kinds>    span kinds to judge, comma-separated (default llm,tool); none judges
                      no span, only the agent-level metrics
  --policy <policy>   existential (default) | threshold:0.3 | category:Rate Limiting,Service Errors
  --budget <tokens>   prompt tokens per judge call (default 16000, or what ;context= leaves); no call exceeds it
  --no-agent          skip the agent-level metrics
  --otlp <target>     also export every verdict as a gen_ai.evaluation.result event parented to
                      the span it judges: an OTLP/HTTP base URL (http://localhost:4318) or a file
                      of OTLP JSON lines; needs a judge (the detectors give no verdicts)
  -h, --help          show this help

Progress goes to stderr; with a judge the last line is the cost (calls, replayed, tokens, cost).
Exit codes: 0 no findings, 1 findings or a failing trace verdict, 2 bad input or usage,
3 the judge gave no verdict for some spans or metrics (unjudgeable: the result is incomplete).
A file that cannot be read or diagnosed is named on stderr and the other files are still diagnosed;
the run then exits 2 even if other files have findings (they are printed and in the JSON report).
`

/** Where the command writes; defaults to the process streams (tests pass their own). */
export interface DiagnoseIO {
  stdout?: { write(chunk: string): unknown; isTTY?: boolean; columns?: number }
  stderr?: { write(chunk: string): unknown; isTTY?: boolean }
}

/** Files at or above this count get a progress line on a terminal's stderr. */
/** `diagnose` exit code when the judge left verdicts unjudgeable (0 none, 1 findings, 2 bad input or usage). */
export const EXIT_UNJUDGEABLE = 3

const PROGRESS_MIN_FILES = 6
/** Input errors printed one by one; the rest are counted. */
const MAX_ERRORS_SHOWN = 10

const OPTIONS = {
  format: { type: 'string', default: 'text' },
  json: { type: 'string' },
  full: { type: 'boolean', default: false },
  judge: { type: 'string' },
  select: { type: 'string' },
  policy: { type: 'string' },
  budget: { type: 'string' },
  'no-agent': { type: 'boolean', default: false },
  otlp: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const

function parse(argv: string[]) {
  try {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
    if (values.format !== 'text' && values.format !== 'json')
      throw new UsageError(`--format must be text or json, not "${values.format}"`)
    if (!values.help && positionals.length === 0)
      throw new UsageError('give at least one trace file, directory or glob')
    if (values.otlp !== undefined && values.otlp.trim() === '')
      throw new UsageError('--otlp needs an OTLP/HTTP base URL (http://localhost:4318) or a file path')
    const judgeOptions = {
      ...(values.select !== undefined ? { select: parseSelect(values.select) } : {}),
      ...(values.policy !== undefined ? { policy: parsePolicy(values.policy) } : {}),
      ...(values.budget !== undefined ? { budgetTokens: parseBudget(values.budget) } : {}),
      agent: !values['no-agent'],
    }
    return { ...values, format: values.format as 'text' | 'json', paths: positionals, judgeOptions }
  } catch (error) {
    if (error instanceof UsageError) throw error
    if (error instanceof OptionError) throw new UsageError(error.message)
    throw new UsageError(usageMessage(error, OPTIONS))
  }
}

/**
 * Entry of `agent-verdict diagnose`; resolves to the exit code: 0 no findings, 1 findings, 2 bad input
 * or usage (a file that is not a trace, a path that matched nothing).
 *
 * @example
 * process.exitCode = await diagnoseCommand(['examples/traces', '--json', 'diagnosis.json'])
 */
export async function diagnoseCommand(argv: string[], io: DiagnoseIO = {}): Promise<number> {
  const stdout = scrubbedStream(io.stdout ?? process.stdout)
  const stderr = scrubbedStream(io.stderr ?? process.stderr)
  let args: ReturnType<typeof parse>
  try {
    args = parse(argv)
  } catch (error) {
    stderr.write(usageLine('diagnose', (error as Error).message))
    return 2
  }
  if (args.help) {
    stdout.write(DIAGNOSE_USAGE)
    return 0
  }
  let judge: Judge | undefined
  try {
    judge = await fittedJudge(args.judge, process.env, (line) => stderr.write(`agent-verdict diagnose: ${line}`))
  } catch (error) {
    if (!(error instanceof JudgeConfigError)) throw error
    stderr.write(
      `agent-verdict diagnose: ${error.message.replace('AGENT_VERDICT_JUDGE=', args.judge !== undefined ? '--judge ' : 'AGENT_VERDICT_JUDGE=')}\n`,
    )
    return 2
  }

  if (args.otlp !== undefined && !judge) {
    stderr.write(
      'agent-verdict diagnose: --otlp exports judge verdicts, and no judge is configured (--judge or AGENT_VERDICT_JUDGE): nothing to export\n',
    )
    return 2
  }

  const inputErrors: Array<{ source: string; message: string }> = []
  const files: string[] = []
  for (const { arg, files: found } of await expandTraceArgs(args.paths)) {
    if (found.length === 0) {
      inputErrors.push({
        source: arg,
        message: `no trace files were found at ${arg}; directories are searched for **/*.{json,jsonl} — check the path or the glob`,
      })
    }
    for (const f of found) if (!files.includes(f)) files.push(f)
  }

  const progress = files.length >= PROGRESS_MIN_FILES && stderr.isTTY === true
  const clearProgress = () => {
    if (progress) stderr.write('\r\u001b[2K')
  }
  const text = args.format === 'text'
  // Fit the terminal: its width on a TTY, 80 columns when piped or redirected.
  const width = stdout.isTTY === true && stdout.columns ? Math.max(40, stdout.columns) : 80
  const textOptions = { full: args.full, color: stdout.isTTY === true && !process.env.NO_COLOR, width }
  // Each trace is printed as soon as it is diagnosed and then dropped: a directory of large traces needs the
  // memory of the largest one, not of all of them (and an interrupted run has printed what it finished).
  // Only the JSON report keeps every trace's entry (its spans without their payloads).
  const keepEntries = args.format === 'json' || args.json !== undefined
  const entries: DiagnoseTrace[] = []
  const summary = emptySummary()
  const diagnoses: Diagnosis[] = []
  const startedAt = new Date()
  const exported: Array<{ source: string; diagnosis: Diagnosis }> = []
  // One file at a time in a function of its own: when it returns, its traces are garbage. Left in this
  // function's loop, the suspended async frame would keep the last file's traces alive while the next loads.
  const diagnoseFile = async (i: number): Promise<void> => {
    if (progress) stderr.write(`\r\u001b[2Kdiagnosing ${i + 1}/${files.length} ${terminalSafe(files[i])}`)
    let traces: Trace[]
    try {
      traces = await loadTraceFile(files[i])
      if (traces.length === 0)
        throw new TraceFormatError('no spans found: the file holds no spans; check that the exporter ran and flushed', {
          file: files[i],
        })
    } catch (error) {
      inputErrors.push({ source: files[i], message: fileErrorMessage(files[i], error) })
      return
    }
    for (const trace of traces) {
      // One trace that breaks the pipeline must not hide the others: it is reported as bad input, the run goes on.
      try {
        await diagnoseTrace(i, trace)
      } catch (error) {
        // The judge's setup or a cancel concerns every file: not an error of this one.
        if (isAbort(error) || error instanceof JudgeConfigError || error instanceof JudgeAbortError) throw error
        inputErrors.push({ source: files[i], message: fileErrorMessage(files[i], error, trace.traceId) })
      }
    }
  }
  const diagnoseTrace = async (i: number, trace: Trace): Promise<void> => {
    // Scrubbed before any excerpt is cut for the terminal: a cut through a key leaves a piece no scrub recognises.
    const findings = scrubDeep(detect(trace))
    let entry = traceEntry(trace, findings, files[i])
    let diagnosis: Diagnosis | undefined
    if (judge) {
      diagnosis = scrubDeep(
        await diagnoseWithProgress(
          trace,
          { judge, ...args.judgeOptions },
          stderr,
          files.length > 1 ? `trace ${i + 1}/${files.length}: ` : '',
        ),
      )
      diagnoses.push(diagnosis)
      if (args.otlp !== undefined) exported.push({ source: files[i], diagnosis })
      entry = { ...entry, diagnosis }
    }
    countTrace(summary, entry)
    if (keepEntries) entries.push(entry)
    if (text) {
      clearProgress()
      stdout.write(renderTraceText(entry, trace, findings, diagnosis, textOptions))
    }
  }
  try {
    for (let i = 0; i < files.length; i++) await diagnoseFile(i)
  } catch (error) {
    if (!(error instanceof JudgeConfigError)) throw error
    clearProgress()
    stderr.write(`agent-verdict diagnose: ${error.message}\n`)
    return 2
  }
  clearProgress()
  summary.inputErrors = inputErrors.length

  const judgeConfigured = judge !== undefined
  const judgeSection = judgeConfigured
    ? {
        configured: true,
        skipped: args.judgeOptions.agent ? [] : JUDGE_METRICS.filter((m) => m.startsWith('agent.')),
        message: costLine(diagnoses),
      }
    : { configured: false, skipped: [...JUDGE_METRICS], message: NO_JUDGE_MESSAGE }

  // A folder full of other JSON (annotations, configs) must not flood the terminal: name the first few.
  for (const e of inputErrors.slice(0, MAX_ERRORS_SHOWN))
    stderr.write(`agent-verdict diagnose: ${terminalSafe(e.message)}\n`)
  if (inputErrors.length > MAX_ERRORS_SHOWN) {
    stderr.write(
      `agent-verdict diagnose: … ${inputErrors.length - MAX_ERRORS_SHOWN} more files could not be read as traces (all are listed in inputErrors of --format json)\n`,
    )
  }
  if (keepEntries) {
    const report: DiagnoseReport = DiagnoseReportSchema.parse({
      schemaVersion: DIAGNOSE_SCHEMA_VERSION,
      traces: entries,
      inputErrors,
      summary,
      judge: judgeSection,
    })
    // Span evidence, subjects and attributes come from the trace: a key in them must not reach the file.
    const json = `${JSON.stringify(scrubDeep(report), null, 2)}\n`
    if (args.json) {
      await mkdir(dirname(args.json), { recursive: true })
      await writeFile(args.json, json)
    }
    if (!text) {
      stdout.write(json)
      if (judgeConfigured) stderr.write(`${judgeSection.message}\n`)
    }
  }
  if (text)
    stdout.write(
      `${summary.findings > 0 ? `${wrapBlock(TREE_LEGEND, width)}\n\n` : ''}${wrapBlock(renderSummaryText(summary, judgeSection.message), width)}`,
    )
  if (args.json && text) stdout.write(`wrote ${args.json}\n`)
  if (args.otlp !== undefined) {
    try {
      const where = await exportDiagnoses(exported, args.otlp, startedAt)
      stderr.write(`agent-verdict diagnose: verdicts exported as OTLP to ${where}\n`)
    } catch (error) {
      stderr.write(`agent-verdict diagnose: ${(error as Error).message}\n`)
      return 2
    }
  }

  if (inputErrors.length > 0) return 2
  // A judge that gave no verdict (unreachable, refusing, sending no valid reply) leaves the result incomplete:
  // its own code, so CI can tell "the agent failed" from "the judge did not judge".
  if (diagnoses.some((d) => d.stats.unjudgeable > 0)) return EXIT_UNJUDGEABLE
  return summary.findings > 0 || diagnoses.some((d) => !d.verdict.pass) ? 1 : 0
}

function isAbort(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'AbortError'
}

/** What went wrong with one file, naming it, for the input-error list (and stderr). */
function fileErrorMessage(file: string, error: unknown, traceId?: string): string {
  if (error instanceof TraceFormatError) return error.file === undefined ? `${file}: ${error.message}` : error.message
  const where = traceId === undefined ? file : `${file} (trace ${traceId})`
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return `${where}: could not be diagnosed: the trace nests too deeply (${error.message}); flatten the deepest attribute values, and please report the file`
  }
  return `${where}: could not be diagnosed: ${(error as Error)?.message ?? String(error)}; the other files were still diagnosed`
}

function countsByCategory(findings: readonly Finding[]): string {
  const counts = new Map<string, number>()
  for (const f of findings) counts.set(f.category, (counts.get(f.category) ?? 0) + 1)
  return [...counts].map(([c, n]) => `${c} ${n}`).join(', ')
}

/** One trace's block of the text output: the span tree with findings marked, warnings, a summary line. */
function renderTraceText(
  entry: DiagnoseTrace,
  trace: Trace,
  findings: Finding[],
  diagnosis: Diagnosis | undefined,
  options: { full: boolean; color: boolean; width: number },
): string {
  const out: string[] = []
  // Everything but the tree (which fits itself, colours included) is plain text wrapped to the width;
  // judged data (names, reasons, warnings quoting span names) is made terminal-safe first.
  const plain = (text: string) => wrapBlock(terminalSafe(text), options.width)
  const source = terminalSafe(entry.source)
  const header = `${source}  trace ${entry.traceId}  (${trace.size} spans)`
  // A long path gets a line of its own (cut from the left: the file name is what a reader needs).
  out.push(
    columns(header) <= options.width
      ? header
      : `${shortenLeft(source, options.width)}\n${plain(`  trace ${entry.traceId}  (${trace.size} spans)`)}`,
  )
  out.push(renderTraceTree(trace, diagnosis ? [...findings, ...judgeMarks(diagnosis)] : findings, options).trimEnd())
  if (diagnosis) out.push(renderJudgeSummary(diagnosis).trimEnd().split('\n').map(plain).join('\n'))
  for (const w of entry.warnings.slice(0, 5)) out.push(plain(`  warning: ${w.message}`))
  if (entry.warnings.length > 5) out.push(`  … ${entry.warnings.length - 5} more warnings (see --format json)`)
  const spansHit = new Set(findings.map((f) => f.spanId)).size
  out.push(
    findings.length === 0
      ? `  summary: no findings in ${trace.size} spans\n`
      : `${plain(`  summary: ${findings.length} finding${findings.length === 1 ? '' : 's'} on ${spansHit} span${spansHit === 1 ? '' : 's'} (${countsByCategory(findings)})`)}\n`,
  )
  return `${out.join('\n')}\n`
}

/** The closing lines of the text output: counts over every trace, then what the judge did (or that none ran). */
function renderSummaryText(s: DiagnoseSummary, judgeMessage: string): string {
  const byCat = Object.entries(s.byCategory)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ')
  const counts = `diagnosed ${s.traces} trace${s.traces === 1 ? '' : 's'} (${s.spans} spans): ${s.findings} finding${s.findings === 1 ? '' : 's'} in ${s.tracesWithFindings} trace${s.tracesWithFindings === 1 ? '' : 's'}${byCat ? ` (${byCat})` : ''}${s.inputErrors > 0 ? `; ${s.inputErrors} input error${s.inputErrors === 1 ? '' : 's'}` : ''}`
  return `${counts}\n${judgeMessage}\n`
}
