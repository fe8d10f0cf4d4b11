// `agent-verdict receive`: in-process with an abort signal, and once as a real process stopped by SIGTERM whose
// written traces `agent-verdict diagnose` then reads.
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { main } from '../../src/cli/main'
import { receiveCommand } from '../../src/cli/receive'
import { loadTrace } from '../../src/trace/load'
import { agentRun, createRecorder } from '../helpers/otel'

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'receive-cli-'))
  dirs.push(dir)
  return dir
}

/** Collects what the command writes; `line(re)` resolves with the first line matching. */
function sink() {
  let text = ''
  const waiting: Array<{ re: RegExp; resolve: (line: string) => void }> = []
  const check = () => {
    for (const w of [...waiting]) {
      const line = text.split('\n').find((l) => w.re.test(l))
      if (line !== undefined) {
        waiting.splice(waiting.indexOf(w), 1)
        w.resolve(line)
      }
    }
  }
  return {
    write(chunk: string) {
      text += chunk
      check()
      return true
    },
    get text() {
      return text
    },
    line(re: RegExp): Promise<string> {
      return new Promise((resolve) => {
        waiting.push({ re, resolve })
        check()
      })
    },
  }
}

function failingRun(seed: number): Uint8Array {
  const rec = createRecorder({ seed })
  agentRun(rec.tracer, { failure: 404 })
  return ProtobufTraceSerializer.serializeRequest(rec.spans())!
}

function post(url: string, body: Uint8Array): Promise<Response> {
  return fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body })
}

describe('agent-verdict receive (in-process)', () => {
  test('prints its URL, writes each complete trace to --out, prints a line per trace, stops on abort with 0', async () => {
    const out = await tempDir()
    const stdout = sink()
    const stderr = sink()
    const stop = new AbortController()
    const exit = receiveCommand(['--port', '0', '--out', out, '--quiet-ms', '20'], {
      signal: stop.signal,
      stdout,
      stderr,
    })
    const url = await stdout.line(/^http:/)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(stderr.text).toContain(`OTEL_EXPORTER_OTLP_ENDPOINT=${url}`)

    expect((await post(url, failingRun(1))).status).toBe(200)
    const line = await stdout.line(/ spans → /)
    const [traceId] = line.split(' ')
    expect(line).toBe(`${traceId} 4 spans → ${join(out, `${traceId}.json`)}`)
    expect(await readdir(out)).toEqual([`${traceId}.json`])
    const trace = await loadTrace(join(out, `${traceId}.json`))
    expect(trace.spans.filter((s) => s.status === 'error').map((s) => s.toolName)).toEqual(['lookup_order'])

    const refused = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    })
    expect(refused.status).toBe(415)
    stop.abort()
    expect(await exit).toBe(0)
    expect(stderr.text).toContain(
      'trace receiver stopped (abort) after 2 requests: 4 spans in 1 traces, 1 requests refused (last: 415 unsupported content type',
    )
    await expect(fetch(`${url}/v1/traces`, { method: 'POST' })).rejects.toThrow()
  })

  test('a trace it cannot write is named on stderr and the exit code is 2 (a bad --out)', async () => {
    const out = join(await tempDir(), 'a-file')
    await writeFile(out, 'not a directory')
    const stdout = sink()
    const stderr = sink()
    const stop = new AbortController()
    const exit = receiveCommand(['--port', '0', '--out', out, '--quiet-ms', '20'], {
      signal: stop.signal,
      stdout,
      stderr,
    })
    const url = await stdout.line(/^http:/)
    await post(url, failingRun(3))
    const line = await stderr.line(/could not write trace/)
    expect(line).toMatch(/^agent-verdict receive: could not write trace [0-9a-f]{32} to .*a-file\/[0-9a-f]{32}\.json: /)
    stop.abort()
    expect(await exit).toBe(2)
  })

  test('is listed in agent-verdict --help', async () => {
    let text = ''
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((text += String(chunk)), true))
    try {
      expect(await main(['--help'])).toBe(0)
    } finally {
      vi.restoreAllMocks()
    }
    expect(text).toMatch(/^ {2}receive {5}receive OTLP\/HTTP traces/m)
  })

  test.each([
    [['--port', 'http'], "--port must be an integer 0-65535, got 'http'"],
    [['--port', '70000'], "--port must be an integer 0-65535, got '70000'"],
    [['--quiet-ms=-5'], '--quiet-ms must be an integer 0-'],
    [['--quiet-ms', '1.5'], '--quiet-ms must be an integer 0-'],
    [['--out', ''], '--out needs a directory'],
    [['--verbose'], 'unknown option --verbose'],
    [['--qiet-ms', '5'], 'unknown option --qiet-ms (did you mean --quiet-ms?)'],
  ])('bad arguments %j → exit 2 with the usage hint', async (argv, message) => {
    const stderr = sink()
    expect(await receiveCommand(argv, { stderr, stdout: sink() })).toBe(2)
    expect(stderr.text).toContain(message)
    expect(stderr.text).toContain('agent-verdict receive --help')
  })

  test('a taken port → exit 2 saying what to do', async () => {
    const blocker = createServer()
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done))
    const port = (blocker.address() as { port: number }).port
    try {
      const stderr = sink()
      expect(await receiveCommand(['--port', String(port)], { stderr, stdout: sink() })).toBe(2)
      expect(stderr.text).toContain(`cannot listen on 127.0.0.1:${port}`)
      expect(stderr.text).toContain('pick another with --port')
    } finally {
      blocker.close()
    }
  })
})

describe('agent-verdict receive (a real process)', () => {
  test('SIGTERM stops it with 0, and `diagnose` reads the traces it wrote', async () => {
    const out = await tempDir()
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/cli/run-cli.ts', 'receive', '--port', '0', '--out', out],
      { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
    const url = (await lines.next()).value as string
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    await post(url, failingRun(2))
    const written = (await lines.next()).value as string
    expect(written).toMatch(/^[0-9a-f]{32} 4 spans → /)
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stderr).toContain('trace receiver stopped (SIGTERM)')

    const file = written.split(' → ')[1]
    expect(JSON.parse(await readFile(file, 'utf8'))).toHaveProperty('resourceSpans')
    let report = ''
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((report += String(chunk)), true))
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    let code: number
    try {
      code = await main(['diagnose', out])
    } finally {
      vi.restoreAllMocks()
    }
    expect(code).toBe(1)
    expect(report).toContain('Resource Not Found')
  }, 60_000)
})
