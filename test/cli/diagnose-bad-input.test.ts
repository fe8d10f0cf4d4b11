// `agent-verdict diagnose` over a directory where one file is bad: exit 2, the file named, every other file diagnosed.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DiagnoseReportSchema } from '../../src/diagnosis/diagnose-report'
import { main } from '../../src/cli/main'
import * as diagnoseJudge from '../../src/cli/diagnose-judge'
import { JudgeConfigError } from '../../src/judges/errors'
import * as detectors from '../../src/metrics/detectors/index'
import { agentRun, createRecorder } from '../helpers/otel'
import { FIXTURE_DIR } from '../helpers/trail'

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)))

vi.mock('../../src/cli/diagnose-judge', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/cli/diagnose-judge')>()
  return { ...actual, diagnoseWithProgress: vi.fn(actual.diagnoseWithProgress) }
})

vi.mock('../../src/metrics/detectors/index', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/metrics/detectors/index')>()
  return { ...actual, detect: vi.fn(actual.detect) }
})

async function run(...args: string[]) {
  let stdout = ''
  let stderr = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true))
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true))
  try {
    return { code: await main(args), stdout, stderr }
  } finally {
    vi.mocked(process.stdout.write).mockRestore()
    vi.mocked(process.stderr.write).mockRestore()
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'diagnose-bad-'))
const dir = join(tmp, 'traces')
const DEPTH = 3_000
/** An OTLP file whose one attribute nests arrayValue 3,000 deep (overflowed the stack before). */
const deepOtlp =
  '{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"tool","kind":1,"startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"a","value":' +
  '{"arrayValue":{"values":['.repeat(DEPTH) +
  '{"stringValue":"leaf"}' +
  ']}}'.repeat(DEPTH) +
  '}],"status":{}}]}]}]}'

beforeAll(() => {
  mkdirSync(dir, { recursive: true })
  // a-: a TRAIL run with findings; b-: the deep file; c-: a clean OTel SDK run (after the bad file in path order).
  copyFileSync(join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json'), join(dir, 'a-findings.json'))
  writeFileSync(join(dir, 'b-deep.json'), deepOtlp)
  const rec = createRecorder({ seed: 11 })
  agentRun(rec.tracer)
  writeFileSync(join(dir, 'c-clean.json'), rec.otlpJson())
})

afterEach(() => {
  vi.mocked(detectors.detect).mockClear()
  vi.mocked(diagnoseJudge.diagnoseWithProgress).mockClear()
})

describe('diagnose with one bad file among good ones', () => {
  it('exits 2, names the bad file and JSON path, and diagnoses the files before and after it', async () => {
    const { code, stdout, stderr } = await run('diagnose', dir)
    expect(code).toBe(2)
    expect(stderr).toContain(
      `${join(dir, 'b-deep.json')} at $.resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value: an attribute value nests arrayValue/kvlistValue more than 256 levels deep`,
    )
    expect(stderr).not.toMatch(/\n\s+at /) // no stack trace
    expect(stdout).toContain(`${join(dir, 'a-findings.json')}\n  trace`)
    expect(stdout).toContain(`${join(dir, 'c-clean.json')}\n  trace`)
    expect(stdout.replace(/\n {2}(?=\S)/g, ' ')).toMatch(/diagnosed 2 traces .*; 1 input error\n/)
  })

  it('lists the bad file in the JSON report next to the two diagnosed traces', async () => {
    const out = join(tmp, 'report.json')
    const { code, stdout } = await run('diagnose', dir, '--format', 'json', '--json', out)
    expect(code).toBe(2)
    const report = DiagnoseReportSchema.parse(JSON.parse(stdout))
    expect(report.traces.map((t) => t.source)).toEqual([join(dir, 'a-findings.json'), join(dir, 'c-clean.json')])
    expect(report.inputErrors).toEqual([
      { source: join(dir, 'b-deep.json'), message: expect.stringContaining('more than 256 levels deep') },
    ])
    expect(report.summary.findings).toBeGreaterThan(0)
  })

  it('a trace that crashes the pipeline after loading is an input error of its file; the other files go on', async () => {
    const actual = (
      await vi.importActual<typeof import('../../src/metrics/detectors/index')>('../../src/metrics/detectors/index')
    ).detect
    vi.mocked(detectors.detect).mockImplementation((trace, options) => {
      if (trace.source?.endsWith('a-findings.json')) throw new RangeError('Maximum call stack size exceeded')
      return actual(trace, options)
    })
    onTestFinished(() => {
      vi.mocked(detectors.detect).mockImplementation(actual) // the other tests (in any order) see the real rules
    })
    const { code, stdout, stderr } = await run('diagnose', join(dir, 'a-findings.json'), join(dir, 'c-clean.json'))
    expect(code).toBe(2)
    expect(stderr).toMatch(
      new RegExp(
        `${join(dir, 'a-findings.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(trace [0-9a-f]+\\): could not be diagnosed: the trace nests too deeply`,
      ),
    )
    expect(stdout).toContain(`${join(dir, 'c-clean.json')}\n  trace`)
    expect(stdout).toMatch(/diagnosed 1 trace .*; 1 input error\n/)
  })

  it('a 30,000-deep parent chain prints in full (--full) with capped indentation, not as an error', async () => {
    const n = 30_000
    const id = (i: number) => (i + 1).toString(16).padStart(16, '0')
    const spans: string[] = []
    for (let i = 0; i < n; i++) {
      spans.push(
        `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"${id(i)}"${i ? `,"parentSpanId":"${id(i - 1)}"` : ''},"name":"s${i}","kind":1,"startTimeUnixNano":"${1000 + i}","endTimeUnixNano":"${2_000_000 + n - i}","attributes":[],"status":{}}`,
      )
    }
    const file = join(tmp, 'chain', 'chain.json')
    mkdirSync(join(tmp, 'chain'), { recursive: true })
    writeFileSync(
      file,
      `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"s"},"spans":[${spans.join(',')}]}]}]}`,
    )
    const { code, stdout, stderr } = await run('diagnose', file, '--full')
    expect(stderr).toBe('')
    expect(code).toBe(0)
    // Piped: 80 columns, so indentation stops at 20 levels and the line says its depth.
    expect(stdout).toContain(`${'  '.repeat(20)}[depth ${n - 1}] other s${n - 1}`)
    expect(stdout).toContain(`diagnosed 1 trace (${n} spans)`)
  }, 60_000)

  it('a judge setup error stops the run once with exit 2, instead of being blamed on each file', async () => {
    vi.mocked(diagnoseJudge.diagnoseWithProgress).mockRejectedValueOnce(
      new JudgeConfigError('openai-compatible:m is not configured: no credentials'),
    )
    const { code, stdout, stderr } = await run(
      'diagnose',
      join(dir, 'a-findings.json'),
      join(dir, 'c-clean.json'),
      '--judge',
      'openai-compatible:http://127.0.0.1:9/v1#m',
    )
    expect(code).toBe(2)
    expect(stderr.match(/is not configured: no credentials/g)).toHaveLength(1)
    expect(stderr).not.toContain('could not be diagnosed')
    expect(stdout).toBe('')
    expect(vi.mocked(diagnoseJudge.diagnoseWithProgress)).toHaveBeenCalledTimes(1)
  })

  it('as a process: no stack trace, exit status 2', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/cli/run-cli.ts', 'diagnose', dir], {
      encoding: 'utf8',
      cwd: repo,
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('b-deep.json at $.resourceSpans[0]')
    expect(r.stderr).not.toContain('RangeError')
    expect(r.stdout).toContain('c-clean.json\n  trace')
  })
})
