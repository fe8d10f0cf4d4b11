// `agent-verdict record --batch -- <command>` and `batch submit | wait`, in-process against msw (the
// OpenAI chat and Batch APIs). The spawned suite has no msw: any live judge call it made would hit a
// closed port on 127.0.0.1 and fail it, so a passing apply run proves 0 live calls.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { batchCommand, providersFromEnv, recordCommand } from '../../src/cli/batch'
import { main } from '../../src/cli/main'
import { readCassette } from '../../src/cassette/store'
import { tempDir } from '../cassette/helpers'
import { fakeOpenAIBatchApi, scriptedVerdict } from '../helpers/openai-batch-api'

const API = 'http://127.0.0.1:9/v1' // nothing listens: only msw (in this process) answers
const api = fakeOpenAIBatchApi(API)
const server = setupServer(...api.handlers)
beforeAll(() =>
  server.listen({
    onUnhandledRequest: (r, print) => {
      if (!r.url.startsWith('data:')) print.error()
    },
  }),
)
afterAll(() => server.close())

const suite = fileURLToPath(new URL('./batch-suite.ts', import.meta.url))
const sink = () => {
  const chunks: string[] = []
  return { chunks, write: (t: string) => chunks.push(t), text: () => chunks.join('') }
}
const env = (dir: string) => ({
  ...process.env,
  OPENAI_API_KEY: 'sk-test-cli-batch-1234',
  OPENAI_BASE_URL: API,
  AGENT_VERDICT_JUDGE: '',
  AGENT_VERDICT_BATCH: '',
  AGENT_VERDICT_MODE: '',
  CI: '',
  AGENT_VERDICT_BATCH_DIR: join(dir, 'batch'),
})
const expected = Array.from({ length: 5 }, (_, i) => {
  const body = {
    messages: [{ role: 'user', content: [{ type: 'text', text: `assertion ${i}: the refund was ${i * 10} EUR` }] }],
  }
  return { output: JSON.parse(scriptedVerdict(body)) }
})

describe('agent-verdict record --batch', () => {
  it('collects, submits, waits with progress, and writes the cassette from the batch with 0 live calls', async () => {
    const dir = tempDir('av-cli-batch-')
    const cassette = join(dir, '__verdicts__', 'suite.test.ts.json')
    const out = join(dir, 'out.json')
    const stdout = sink()
    const stderr = sink()
    api.liveCalls = 0
    const code = await recordCommand(
      ['--batch', '--poll-seconds', '0', '--', process.execPath, '--import', 'tsx', suite, cassette, out],
      { env: env(dir), stdout, stderr },
    )
    expect(stderr.text()).toContain('2/3 5 judge requests queued')
    expect(stderr.text()).toMatch(/batch batch_\d+ in_progress: 2\/5 done, ETA/)
    expect(code).toBe(0)
    expect(stdout.text()).toContain('record --batch: 5 of 5 verdicts from the batch\n')
    expect(api.liveCalls).toBe(0)
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(expected) // the scripted judge's verdicts, as a live record gets them
    expect(Object.keys((await readCassette(cassette)).entries)).toHaveLength(5)

    // The suite now replays from the cassette: no queue, no judge.
    const again = await recordCommand(['--batch', '--', process.execPath, '--import', 'tsx', suite, cassette, out], {
      env: env(dir),
      stdout,
      stderr,
    })
    expect(again).toBe(0)
    expect(stderr.text()).toContain('nothing to judge (every verdict is recorded)')
    expect(api.liveCalls).toBe(0)
  }, 60_000)

  it('exits 3 when the provider takes no batch (no verdicts), not 1 (failing tests) or 2 (usage)', async () => {
    const dir = tempDir('av-cli-batch-')
    const cassette = join(dir, '__verdicts__', 'suite.test.ts.json')
    const stderr = sink()
    // The queue is collected, then the upload is refused as a provider would refuse a revoked key.
    server.use(
      http.post(`${API}/files`, () =>
        HttpResponse.json(
          { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
          { status: 401 },
        ),
      ),
    )
    try {
      const code = await recordCommand(
        [
          '--batch',
          '--poll-seconds',
          '0',
          '--',
          process.execPath,
          '--import',
          'tsx',
          suite,
          cassette,
          join(dir, 'out.json'),
        ],
        { env: env(dir), stdout: sink(), stderr },
      )
      expect(stderr.text()).toContain('5 judge requests queued')
      expect(code).toBe(3)
      expect(stderr.text()).not.toContain('sk-test-cli-batch-1234')
    } finally {
      server.resetHandlers()
    }
  }, 60_000)

  it('says what to do on bad usage and when nothing was submitted', async () => {
    const dir = tempDir('av-cli-batch-')
    const stderr = sink()
    expect(await recordCommand(['--', 'true'], { env: env(dir), stderr })).toBe(2)
    expect(stderr.text()).toContain('only --batch is supported')
    expect(await recordCommand(['--batch'], { env: env(dir), stderr })).toBe(2)
    expect(stderr.text()).toContain('give the test command after --')
    expect(await batchCommand(['wait', '--dir', dir], { env: env(dir), stderr })).toBe(2)
    expect(stderr.text()).toContain('no submitted batch in')
    expect(await batchCommand(['submit', '--dir', dir], { env: env(dir), stderr })).toBe(2)
    expect(stderr.text()).toContain('queue in')
    expect(await batchCommand(['frobnicate'], { env: env(dir), stderr })).toBe(2)
    const help = sink()
    const saved = process.stdout.write
    process.stdout.write = ((t: string) => help.write(t)) as never
    try {
      await main(['--help'])
    } finally {
      process.stdout.write = saved
    }
    expect(help.text()).toMatch(/record\s+record --batch -- <test command>/)
  })
})

describe('providersFromEnv', () => {
  it('takes an empty OPENAI_API_KEY for no key: the placeholder for a local server, an error for OpenAI', async () => {
    const local = await providersFromEnv({ OPENAI_API_KEY: ' ', OPENAI_BASE_URL: API }).openai?.()
    expect(local?.apiKey).toBe('not-needed')
    expect(() => providersFromEnv({ OPENAI_API_KEY: '' }).openai?.()).toThrow(
      'OpenAI batch judging needs OPENAI_API_KEY',
    )
  })
})
