// `agent-verdict diagnose`: in-process through main() with captured output, and once through the built bin.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { diagnoseCommand } from '../../src/cli/diagnose'
import { DiagnoseReportSchema } from '../../src/diagnosis/diagnose-report'
import { main } from '../../src/cli/main'
import { syntheticOtlpTrace } from '../../bench/synthetic-otlp'
import { agentRun, createRecorder } from '../helpers/otel'
import { HAVE_TRAIL, TRAIL_DIR } from '../metrics/detectors/trail'
import { FIXTURE_DIR } from '../helpers/trail'

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)))

/** Runs `agent-verdict <args>` in-process and captures what it writes. */
async function run(...args: string[]) {
  let stdout = ''
  let stderr = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true))
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true))
  try {
    const code = await main(args)
    return { code, stdout, stderr }
  } finally {
    vi.restoreAllMocks()
  }
}

afterEach(() => vi.restoreAllMocks())

const tmp = mkdtempSync(join(tmpdir(), 'diagnose-cli-'))
/** Real TRAIL runs from test/fixtures: an mp3 the tool could not convert, and a run that answered without looking anything up. */
const withFindings = join(tmp, 'traces')
const cleanFile = join(tmp, 'clean', 'otel-clean.json')

function trailFile(split: string, prefix: string): string {
  const dir = join(TRAIL_DIR, split)
  return join(dir, readdirSync(dir).find((f) => f.startsWith(prefix))!)
}

beforeAll(() => {
  mkdirSync(join(tmp, 'clean'), { recursive: true })
  // A clean run recorded with the OTel SDK and written as OTLP JSON, as an exporter would.
  const rec = createRecorder({ seed: 11 })
  agentRun(rec.tracer)
  writeFileSync(cleanFile, rec.otlpJson())
  mkdirSync(withFindings, { recursive: true })
  copyFileSync(join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json'), join(withFindings, '41bbc898.json'))
  copyFileSync(join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json'), join(withFindings, '0ebe673d.json'))
})

describe('agent-verdict diagnose on real TRAIL traces (test/fixtures/trail)', () => {
  it('prints the span tree with the finding marked, a summary per trace and overall, and exits 1', async () => {
    const { code, stdout, stderr } = await run('diagnose', withFindings)
    expect(code).toBe(1)
    expect(stderr).toBe('')
    // One line per span: indentation, kind, name, status, duration, tokens.
    expect(stdout).toMatch(/^ {6}agent CodeAgent\.run {2}ok {2}1m10\.3s {2}12,676 tok$/m)
    // Piped, so fitted to 80 columns: a name shortened to fit, the cited span's short id on its line.
    for (const line of stdout.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80)
    expect(stdout).toMatch(
      /^✗ {13}llm {3}LiteLLMModel\.\S*… {2}\(o3-mini\) {2}ok {2}6\.37s {2}3,595 tok {2}id [0-9a-f]{8}$/m,
    )
    expect(stdout).toMatch(/^ +tool {2}TextInspectorTool {2}.* {2}id 610df94b$/m)
    const unwrapped = stdout.replace(/\n {4,}(?=\S)/g, ' ')
    expect(stdout).toMatch(/^ {18}✗ Environment Setup Errors: the environment lacks/m)
    expect(unwrapped).toContain(
      'permission); raised in TOOL TextInspectorTool (610df94b…) evidence (from span 610df94b):',
    )
    expect(unwrapped).toContain('evidence (from span 610df94b): "FileConversionException: Could not convert')
    expect(unwrapped).toContain('legend: ✗ in the margin marks the span a finding is blamed on')
    // The conversion error on the call that asked for it, and again on the next call, whose input shows it.
    expect(stdout).toContain('summary: 2 findings on 2 spans (Environment Setup Errors 2)')
    expect(stdout).toContain('summary: 1 finding on 1 span (Goal Deviation 1)')
    const closing = stdout.replace(/\n {2}(?=\S)/g, ' ')
    expect(closing).toContain(
      'diagnosed 2 traces (32 spans): 3 findings in 2 traces (Goal Deviation 1, Environment Setup Errors 2)',
    )
    expect(stdout.indexOf('0ebe673d.json\n  trace 0ebe673d64647ec44c370638b82d3c78  (11 spans)')).toBeLessThan(
      stdout.indexOf('41bbc898.json\n  trace 41bbc898'),
    )
    expect(closing).toContain(
      'Judge-based metrics skipped: no judge configured (set AGENT_VERDICT_JUDGE=openai:MODEL | bedrock:MODEL_ID | openai-compatible:URL#MODEL)',
    )
  })

  it('--format json prints a schema-valid report listing each trace by id; --json writes the same file', async () => {
    const out = join(tmp, 'out', 'nested', 'diagnosis.json')
    const { code, stdout } = await run('diagnose', withFindings, '--format', 'json', '--json', out)
    expect(code).toBe(1)
    const report = DiagnoseReportSchema.parse(JSON.parse(stdout))
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(report)
    expect(report.traces.map((t) => t.traceId)).toEqual([
      '0ebe673d64647ec44c370638b82d3c78',
      '41bbc898aa7de0f31d2382ff57700a76',
    ])
    const t = report.traces.find((x) => x.traceId.startsWith('41bbc898'))!
    expect(t.source).toBe(join(withFindings, '41bbc898.json'))
    expect(t.spans).toHaveLength(21)
    // Exact start in ns, computed from the file's microsecond timestamp without our reader.
    const raw = JSON.parse(readFileSync(join(withFindings, '41bbc898.json'), 'utf8')).spans[0]
    const [, secs, micros] = /^(.*?)\.(\d{6})Z$/.exec(raw.timestamp)!
    const startNs = (BigInt(Date.parse(`${secs}Z`)) * 1_000_000n + BigInt(micros) * 1000n).toString()
    const [, minutes, seconds] = /^PT(?:(\d+)M)?([\d.]+)S$/.exec(raw.duration)!
    const durationNs = Number(minutes ?? 0) * 60e9 + Math.round(Number(seconds) * 1e9)
    expect(t.spans[0]).toEqual({
      id: raw.span_id,
      parentId: null,
      name: 'main',
      kind: 'other',
      status: 'unset',
      startNs,
      durationNs,
    })
    expect(t.findings).toEqual([
      expect.objectContaining({
        spanId: '101f42b3dad5a0d1',
        category: 'Environment Setup Errors',
        detector: 'error-status',
      }),
      expect.objectContaining({
        spanId: '8133aad4e05365c5',
        category: 'Environment Setup Errors',
        detector: 'error-observed',
      }),
    ])
    expect(t.warnings.length).toBeGreaterThan(0)
    expect(report.summary).toMatchObject({
      traces: 2,
      spans: 32,
      findings: 3,
      tracesWithFindings: 2,
      byCategory: { 'Environment Setup Errors': 2, 'Goal Deviation': 1 },
      inputErrors: 0,
    })
    expect(report.judge).toMatchObject({
      configured: false,
      skipped: expect.arrayContaining(['span.reasoning_integrity', 'agent.tool_abuse']),
    })
  })

  it('runs the README command on examples/traces', async () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8')
    const first = /```sh\n([^`]*)```/.exec(readme)![1].split('\n')
    expect(first[0]).toMatch(
      /^npm ci && npx agent-verdict diagnose examples\/traces +# .*\(exits 1: it finds failures\)$/,
    )
    expect(first[1]).toMatch(/^npm test +#/)
    // Exit 1 is the README's promise for this command: findings on the example traces, not a failure of the tool.
    expect(readme).toContain('**On the example traces it exits\n1, and that is the expected result**')
    const { code, stdout } = await run('diagnose', join(repo, 'examples/traces'))
    expect(code).toBe(1)
    expect(stdout).toMatch(/diagnosed 3 traces \(\d+ spans\): [1-9]\d* findings? in [1-3] traces?/)
  })

  it('writes each trace as it is diagnosed, in a write of its own, and the totals last', async () => {
    const writes: string[] = []
    const stdout = { write: (s: string) => writes.push(s) }
    const stderr = { write: () => true }
    expect(await diagnoseCommand([withFindings], { stdout, stderr })).toBe(1)
    // One write per trace (its whole block), then the totals: a run interrupted midway has printed what it
    // finished, and a directory of large traces never holds more than one in memory.
    expect(writes).toHaveLength(3)
    expect(writes[0]).toMatch(/^\S*0ebe673d\.json(\n {2}| {2})trace /)
    expect(writes[0]).toMatch(/ {2}summary: \d+ findings? on \d+ spans? \(.+\)\n\n$/)
    expect(writes[0]).not.toContain('41bbc898')
    expect(writes[1]).toMatch(/^\S*41bbc898\.json(\n {2}| {2})trace /)
    expect(writes[2]).toMatch(/^legend: [\s\S]*\n\ndiagnosed 2 traces \(\d+ spans\): \d+ findings in 2 traces/)
    expect(writes[2]).toContain('Judge-based metrics skipped')
    // --format json writes once, the whole report: the same bytes as the --json file.
    const file = join(tmp, 'streamed.json')
    const jsonWrites: string[] = []
    expect(
      await diagnoseCommand([withFindings, '--format', 'json', '--json', file], {
        stdout: { write: (s: string) => jsonWrites.push(s) },
        stderr,
      }),
    ).toBe(1)
    expect(jsonWrites).toHaveLength(1)
    expect(readFileSync(file, 'utf8')).toBe(jsonWrites[0])
    expect(DiagnoseReportSchema.parse(JSON.parse(jsonWrites[0])).summary.traces).toBe(2)
  })
})

describe.skipIf(!HAVE_TRAIL)('agent-verdict diagnose on a long shared TRAIL trace', () => {
  it('folds clean parts of long traces but keeps every finding visible', async () => {
    const dir = join(tmp, 'long')
    mkdirSync(dir, { recursive: true })
    copyFileSync(trailFile('GAIA', '59365b27'), join(dir, 'long.json'))
    const { code, stdout } = await run('diagnose', dir)
    expect(code).toBe(1)
    expect(stdout).toMatch(/… \d+ more ok spans/)
    expect(stdout).toMatch(/\(\+\d+ ok spans folded\)/)
    const { stdout: full } = await run('diagnose', dir, '--full')
    expect(full.split('\n').length).toBeGreaterThan(stdout.split('\n').length)
    // Every finding line survives folding.
    const marks = (s: string) => s.split('\n').filter((l) => l.includes('✗ ')).length
    expect(marks(stdout)).toBe(marks(full))
  })
})

describe('agent-verdict diagnose exit codes and bad input', () => {
  it('exits 0 for a clean OTLP trace recorded with the OTel SDK', async () => {
    const { code, stdout } = await run('diagnose', cleanFile)
    expect(code).toBe(0)
    expect(stdout).toContain('summary: no findings in 4 spans')
    expect(stdout).toContain('diagnosed 1 trace (4 spans): 0 findings in 0 traces')
  })

  it('exits 2 with a clear message (no stack) for a 0-byte file, a directory without traces, and non-trace JSON', async () => {
    const empty = join(tmp, 'empty.json')
    writeFileSync(empty, '')
    const notTrace = join(tmp, 'package-like.json')
    writeFileSync(notTrace, '{"foo": 1}')
    const noTraces = join(tmp, 'no-traces')
    mkdirSync(noTraces, { recursive: true })
    writeFileSync(join(noTraces, 'README.md'), '# nothing here')

    const a = await run('diagnose', empty)
    expect(a.code).toBe(2)
    expect(a.stderr).toContain(`${empty} at $: the file is empty (0 bytes)`)
    const b = await run('diagnose', noTraces)
    expect(b.code).toBe(2)
    expect(b.stderr).toContain(`no trace files were found at ${noTraces}`)
    const c = await run('diagnose', notTrace)
    expect(c.code).toBe(2)
    expect(c.stderr).toContain(
      'not a trace: expected OTLP `resourceSpans` or an OpenInference `{trace_id, spans}` envelope, found an object with keys foo',
    )
    for (const r of [a, b, c]) expect(r.stderr).not.toMatch(/^\s+at /m)
  })

  it('still diagnoses the good files when one is bad, and exits 2', async () => {
    const bad = join(tmp, 'truncated.json')
    writeFileSync(bad, '{"resourceSpans": [')
    const { code, stdout, stderr } = await run('diagnose', cleanFile, bad)
    expect(code).toBe(2)
    expect(stdout).toContain('diagnosed 1 trace (4 spans): 0 findings in 0 traces; 1 input error')
    expect(stderr).toContain(bad)
  })

  it('names the first 10 unreadable files and counts the rest, so a folder of other JSON does not flood the terminal', async () => {
    const dir = join(tmp, 'annotations')
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < 12; i++)
      writeFileSync(join(dir, `gold-${String(i).padStart(2, '0')}.json`), '{"errors": [], "scores": []}')
    const { code, stderr, stdout } = await run('diagnose', dir, '--format', 'json')
    expect(code).toBe(2)
    expect(stderr.split('\n').filter((l) => l.includes('not a trace'))).toHaveLength(10)
    expect(stderr).toContain('… 2 more files could not be read as traces')
    expect(DiagnoseReportSchema.parse(JSON.parse(stdout)).inputErrors).toHaveLength(12)
  })

  it('shows progress for many files as one updating stderr line on a terminal, and nothing in CI logs', async () => {
    const dir = join(tmp, 'many')
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < 6; i++) copyFileSync(cleanFile, join(dir, `run-${i}.json`))
    const capture = (isTTY: boolean) => {
      const io = { out: '', err: '' }
      return {
        io,
        streams: {
          stdout: { write: (s: string) => (io.out += s) },
          stderr: { write: (s: string) => (io.err += s), isTTY },
        },
      }
    }
    const tty = capture(true)
    expect(await diagnoseCommand([dir], tty.streams)).toBe(0)
    expect(tty.io.err).toContain('\r\u001b[2Kdiagnosing 1/6 ')
    expect(tty.io.err).toContain('\r\u001b[2Kdiagnosing 6/6 ')
    expect(tty.io.err.endsWith('\r\u001b[2K')).toBe(true)
    expect(tty.io.err).not.toContain('\n')
    expect(tty.io.out).toContain('diagnosed 6 traces')
    const ci = capture(false)
    expect(await diagnoseCommand([dir], ci.streams)).toBe(0)
    expect(ci.io.err).toBe('')
  })

  it('exits 2 on usage errors and 0 for --help', async () => {
    expect((await run('diagnose')).code).toBe(2)
    const bad = await run('diagnose', cleanFile, '--format', 'xml')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--format must be text or json, not "xml"')
    const unknown = await run('diagnose', cleanFile, '--fast')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('unknown option --fast')
    expect(unknown.stderr).not.toContain('To specify a positional argument')
    const help = await run('diagnose', '--help')
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: agent-verdict diagnose')
    expect((await run('--version')).stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
    expect((await run('nope')).code).toBe(2)
  })
})

const BIN = join(repo, 'bin/agent-verdict.js')
const BUILT =
  existsSync(join(repo, 'dist/cli.js')) && readFileSync(join(repo, 'dist/cli.js'), 'utf8').includes('diagnose')

describe.skipIf(!BUILT)('the built bin (node bin/agent-verdict.js, after npx tsup)', () => {
  const bin = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: repo })

  it('exits 0 / 1 / 2 like the in-process command', () => {
    expect(bin('diagnose', cleanFile).status).toBe(0)
    const bad = bin('diagnose', join(tmp, 'does-not-exist'))
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('no trace files were found at')
    const found = bin('diagnose', withFindings)
    expect(found.status).toBe(1)
    expect(found.stdout).toContain('✗ Environment Setup Errors')
  })

  it('diagnoses a directory of large traces in the memory of one: 5 × 10k spans under a 64 MB heap', () => {
    // Each trace takes ~17 MB once read; keeping all five (as the command did before it streamed) ran out
    // of a 64 MB heap, while one at a time needs under 48 MB.
    const dir = join(tmp, 'large')
    mkdirSync(dir, { recursive: true })
    const text = syntheticOtlpTrace(10_000)
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, `run-${i}.json`), text)
    const r = spawnSync(process.execPath, ['--max-old-space-size=64', BIN, 'diagnose', dir], {
      encoding: 'utf8',
      cwd: repo,
    })
    expect(r.stderr).not.toContain('heap out of memory')
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/^diagnosed 5 traces \(50000 spans\): \d+ findings in 5 traces/m)
  })
})

describe('agent-verdict diagnose fits the terminal and neutralizes judged text', () => {
  const capture = (columns?: number) => {
    const out: string[] = []
    return {
      out,
      stdout: { write: (s: string) => out.push(s), isTTY: columns !== undefined, columns },
      stderr: { write: () => true },
    }
  }

  it('a TTY of 60 columns: every line fits, names shorten, cited spans keep their id', async () => {
    const io = capture(60)
    expect(await diagnoseCommand([withFindings], io)).toBe(1)
    const text = io.out.join('').replace(/\u001b\[[0-9;]*m/g, '')
    for (const line of text.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(60)
    expect(text).toMatch(/ {2}id 610df94b$/m)
    expect(text).toContain('(from span 610df94b)')
  })

  it('control characters in span names and payloads never reach the terminal as escapes', async () => {
    const hostile = '\u001b[2K\r\u001b[32m✓ pass\u001b[0m\u009b31m'
    const dir = join(tmp, 'hostile')
    mkdirSync(dir, { recursive: true })
    const text = readFileSync(join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json'), 'utf8')
    writeFileSync(
      join(dir, 'hostile.json'),
      text
        .replaceAll('TextInspectorTool', `TextInspectorTool${JSON.stringify(hostile).slice(1, -1)}`)
        .replaceAll('FileConversionException', `FileConversionException${JSON.stringify(hostile).slice(1, -1)}`),
    )
    const io = capture()
    expect(await diagnoseCommand([dir], io)).toBe(1)
    const out = io.out.join('')
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    expect(out).toContain('␛[2K␍␛[32m✓ pass␛[0m')
    for (const line of out.split('\n')) expect(line).not.toMatch(/^✓ pass/)
  })
})
