// `agent-verdict report merge | html | junit | gate | diff`: combine CI shards' artifacts, render one as HTML or JUnit XML, check suite gates, diff two runs.
import { dirname, resolve } from 'node:path'
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { unknownSubcommand, usageLine, usageMessage } from './args'
import { mergeReports, readReport, writeReport } from '../report/artifact'
import { diffVerdicts } from '../report/diff'
import { evaluateGates, parseGates, type Gates } from '../report/gates'
import { renderDiffMarkdown, renderDiffText } from '../report/render-diff'
import { loadSide, loadSideAtRef } from './diff-sources'
import { writeHtmlReport } from '../report/html-report'
import { DEFAULT_JUNIT_FILE, renderJunit } from '../report/render-junit'
import { writeFileAtomic } from '../files/atomic'
import { scrubDeep } from '../config/secrets'
import type { Report } from '../verdict/report'
import { scrubbedStream } from './scrubbed-output'

const USAGE = `usage:
  agent-verdict report merge <a.json> <b.json…> [--out agent-verdict-report.json]
  agent-verdict report html <report.json> [--out agent-verdict-report.html] [--base-dir <dir>]
  agent-verdict report junit <report.json> [--out agent-verdict-junit.xml]
  agent-verdict report gate <report.json> [--gates gates.json] [--min-pass-rate 0.9] [--max-unjudgeable 0]
                            [--max-cost-usd 2.5] [--metric-min faithfulness=0.8] [--metric-min-score quality=0.7]
      exit 1 when a gate is broken (one line per gate: its name, the measured value and the limit)
  agent-verdict report diff <base> <head> [--json | --markdown] [--fail-on regression|change]
  agent-verdict report diff --base-ref origin/main <head> [--json | --markdown] [--fail-on regression|change]
      each side: a report JSON or a folder with __verdicts__ cassettes; --base-ref reads the head's path at a git ref
`

/** Where the command writes; injectable so tests can capture output. */
export interface ReportCommandIO {
  stdout?: { write(text: string): unknown }
  stderr?: { write(text: string): unknown }
}

/**
 * Runs `agent-verdict report …` with `argv` = the words after `report`. Returns the exit code:
 * 0 ok, 1 a report could not be read or written, 2 bad usage.
 *
 * @example
 * process.exitCode = await reportCommand(['merge', 'shard-1/agent-verdict-report.json', 'shard-2/agent-verdict-report.json', '--out', 'merged.json'])
 */
export async function reportCommand(argv: string[], io: ReportCommandIO = {}): Promise<number> {
  const stdout = scrubbedStream(io.stdout ?? process.stdout)
  const stderr = scrubbedStream(io.stderr ?? process.stderr)
  let args: ReturnType<typeof parse>
  try {
    args = parse(argv)
  } catch (error) {
    stderr.write(usageLine('report', usageMessage(error, OPTIONS)))
    return 2
  }
  const [sub, ...files] = args.positionals
  if (args.values.help) {
    stdout.write(USAGE)
    return 0
  }
  try {
    if (sub === 'merge') {
      if (files.length === 0) return usage(stderr, 'merge needs at least one report file')
      const merged = mergeReports(await Promise.all(files.map((f) => readScrubbed(f))))
      const out = await writeReport(args.values.out ?? 'agent-verdict-report.json', merged)
      const t = merged.run.totals
      stdout.write(
        `merged ${files.length} reports (${merged.tests.length} tests, ${t.assertions} assertions, ${t.failed} failed, ${t.verdicts} verdicts) into ${out}\n`,
      )
      return 0
    }
    if (sub === 'html') {
      if (files.length !== 1) return usage(stderr, 'html takes exactly one report file')
      const report = await readScrubbed(files[0])
      // Relative image paths in verdicts are relative to the test root, which is usually where the report was written.
      const baseDir = resolve(args.values['base-dir'] ?? dirname(resolve(files[0])))
      const out = await writeHtmlReport(args.values.out ?? 'agent-verdict-report.html', report, { baseDir })
      stdout.write(`wrote ${out}\n`)
      return 0
    }
    if (sub === 'junit') {
      if (files.length !== 1) return usage(stderr, 'junit takes exactly one report file (merge shards first)')
      const report = await readScrubbed(files[0])
      const out = await writeFileAtomic(args.values.out ?? DEFAULT_JUNIT_FILE, renderJunit(report))
      stdout.write(`wrote ${out} (${report.tests.length} tests, ${report.run.totals.verdicts} verdicts)\n`)
      return 0
    }
    if (sub === 'gate') {
      if (files.length !== 1) return usage(stderr, 'gate takes exactly one report file (merge shards first)')
      let gates: Gates
      try {
        gates = await gatesFromArgs(args.values)
      } catch (error) {
        return usage(stderr, (error as Error).message)
      }
      if (Object.keys(gates).length === 0)
        return usage(
          stderr,
          'gate needs at least one limit (--min-pass-rate, --max-unjudgeable, --max-cost-usd, --metric-min, --metric-min-score or --gates)',
        )
      const results = evaluateGates(await readScrubbed(files[0]), gates)
      for (const r of results) (r.ok ? stdout : stderr).write(`${r.line}\n`)
      const broken = results.filter((r) => !r.ok).length
      stdout.write(
        broken === 0 ? `all ${results.length} gates hold\n` : `${broken} of ${results.length} gates broken\n`,
      )
      return broken === 0 ? 0 : 1
    }
    if (sub === 'diff') {
      const ref = args.values['base-ref']
      if (ref ? files.length !== 1 : files.length !== 2)
        return usage(
          stderr,
          ref
            ? 'diff --base-ref takes exactly one head (a report JSON or a folder)'
            : 'diff takes a base and a head (or --base-ref <ref> and a head)',
        )
      const failOn = args.values['fail-on']
      if (failOn !== undefined && failOn !== 'regression' && failOn !== 'change')
        return usage(stderr, `--fail-on takes regression or change, got "${failOn}"`)
      if (args.values.json && args.values.markdown) return usage(stderr, 'choose one of --json and --markdown')
      const head = files[files.length - 1]
      const [baseSide, headSide] = await Promise.all([
        ref ? loadSideAtRef(ref, head) : loadSide(files[0]),
        loadSide(head),
      ])
      const diff = diffVerdicts(baseSide, headSide)
      stdout.write(
        args.values.json
          ? JSON.stringify(diff, null, 2) + '\n'
          : args.values.markdown
            ? renderDiffMarkdown(diff)
            : renderDiffText(diff),
      )
      const changed = diff.flipped.length + diff.scoreChanges.length + diff.added.length + diff.removed.length > 0
      return (failOn === 'regression' && diff.regressions > 0) || (failOn === 'change' && changed) ? 1 : 0
    }
    return usage(stderr, unknownSubcommand(sub, SUBCOMMANDS))
  } catch (error) {
    // Every failure here is a report that cannot be read, parsed or written: bad input, never a finding.
    stderr.write(`agent-verdict report ${sub}: ${(error as Error).message}\n`)
    return 2
  }
}

const SUBCOMMANDS = ['merge', 'html', 'junit', 'gate', 'diff']

const OPTIONS = {
  out: { type: 'string', short: 'o' },
  'base-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  gates: { type: 'string' },
  'min-pass-rate': { type: 'string' },
  'max-unjudgeable': { type: 'string' },
  'max-cost-usd': { type: 'string' },
  'metric-min': { type: 'string', multiple: true },
  'metric-min-score': { type: 'string', multiple: true },
  'base-ref': { type: 'string' },
  json: { type: 'boolean' },
  markdown: { type: 'boolean' },
  'fail-on': { type: 'string' },
} as const

function parse(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
}

function usage(stderr: { write(text: string): unknown }, problem: string): number {
  stderr.write(usageLine('report', problem))
  return 2
}

type ParsedValues = ReturnType<typeof parse>['values']

// Flags override the same gates read from `--gates <file>`; both go through one schema.
async function gatesFromArgs(values: ParsedValues): Promise<Gates> {
  let fromFile: Record<string, unknown> = {}
  if (values.gates) {
    try {
      fromFile = JSON.parse(await readFile(values.gates, 'utf8'))
    } catch (error) {
      throw new Error(`cannot read --gates ${values.gates}: ${(error as Error).message}`)
    }
  }
  const num = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined
    const n = Number(v)
    if (v.trim() === '' || !Number.isFinite(n)) throw new Error(`--${flag} needs a number, got "${v}"`)
    return n
  }
  const metrics: Record<string, { minPassRate?: number; minMeanScore?: number }> = {
    ...((fromFile.metrics as object) ?? {}),
  }
  const perMetric = (flag: string, key: 'minPassRate' | 'minMeanScore', list: string[] | undefined) => {
    for (const item of list ?? []) {
      const eq = item.lastIndexOf('=')
      if (eq <= 0) throw new Error(`--${flag} takes metric=value, e.g. --${flag} faithfulness=0.8; got "${item}"`)
      const name = item.slice(0, eq)
      metrics[name] = { ...metrics[name], [key]: num(flag, item.slice(eq + 1)) }
    }
  }
  perMetric('metric-min', 'minPassRate', values['metric-min'])
  perMetric('metric-min-score', 'minMeanScore', values['metric-min-score'])
  const merged: Record<string, unknown> = { ...fromFile }
  const set = (key: string, v: number | undefined) => {
    if (v !== undefined) merged[key] = v
  }
  set('minPassRate', num('min-pass-rate', values['min-pass-rate']))
  set('maxUnjudgeable', num('max-unjudgeable', values['max-unjudgeable']))
  set('maxCostUsd', num('max-cost-usd', values['max-cost-usd']))
  if (Object.keys(metrics).length > 0) merged.metrics = metrics
  return parseGates(merged, values.gates ? `gate in ${values.gates}` : 'gate')
}

/** A report as every output of this command renders it: scrubbed, whatever wrote the file. */
async function readScrubbed(path: string): Promise<Report> {
  return scrubDeep(await readReport(path))
}
