// `agent-verdict report merge | html | junit`: combine CI shards' artifacts, render one as HTML or JUnit XML.
import { dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { mergeReports, readReport, writeReport } from '../../reporters/artifact'
import { writeHtmlReport } from '../../reporters/html-report'
import { DEFAULT_JUNIT_FILE, renderJunit } from '../../reporters/render-junit'
import { writeFileAtomic } from '../../reporters/write-atomic'

const USAGE = `usage:
  agent-verdict report merge <a.json> <b.json…> [--out agent-verdict-report.json]
  agent-verdict report html <report.json> [--out agent-verdict-report.html] [--base-dir <dir>]
  agent-verdict report junit <report.json> [--out agent-verdict-junit.xml]
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
  const stdout = io.stdout ?? process.stdout
  const stderr = io.stderr ?? process.stderr
  let args: ReturnType<typeof parse>
  try {
    args = parse(argv)
  } catch (error) {
    stderr.write(`agent-verdict report: ${(error as Error).message}\n${USAGE}`)
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
      const merged = mergeReports(await Promise.all(files.map((f) => readReport(f))))
      const out = await writeReport(args.values.out ?? 'agent-verdict-report.json', merged)
      const t = merged.run.totals
      stdout.write(`merged ${files.length} reports (${merged.tests.length} tests, ${t.assertions} assertions, ${t.failed} failed, ${t.verdicts} verdicts) into ${out}\n`)
      return 0
    }
    if (sub === 'html') {
      if (files.length !== 1) return usage(stderr, 'html takes exactly one report file')
      const report = await readReport(files[0])
      // Relative image paths in verdicts are relative to the test root, which is usually where the report was written.
      const baseDir = resolve(args.values['base-dir'] ?? dirname(resolve(files[0])))
      const out = await writeHtmlReport(args.values.out ?? 'agent-verdict-report.html', report, { baseDir })
      stdout.write(`wrote ${out}\n`)
      return 0
    }
    if (sub === 'junit') {
      if (files.length !== 1) return usage(stderr, 'junit takes exactly one report file (merge shards first)')
      const report = await readReport(files[0])
      const out = await writeFileAtomic(args.values.out ?? DEFAULT_JUNIT_FILE, renderJunit(report))
      stdout.write(`wrote ${out} (${report.tests.length} tests, ${report.run.totals.verdicts} verdicts)\n`)
      return 0
    }
    return usage(stderr, sub ? `unknown subcommand "${sub}"` : 'missing subcommand')
  } catch (error) {
    stderr.write(`${(error as Error).message}\n`)
    return 1
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: 'string', short: 'o' }, 'base-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  })
}

function usage(stderr: { write(text: string): unknown }, problem: string): number {
  stderr.write(`agent-verdict report: ${problem}\n${USAGE}`)
  return 2
}
