// Batch record under the real Vitest CLI: `agent-verdict record --batch -- vitest run` on a project with
// judge matchers. The tests are configured with fake judge A (the live endpoint); msw in this process
// stands in for the OpenAI Batch API at A's base URL and has each batch line answered by fake judge B,
// started with the same rules. Acceptance: A sees 0 chat calls in the batch path, and the cassette is
// the one a live record of the same suite against the same scripted judge writes (dates aside).
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { bypass } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { recordCommand } from '../../src/cli/batch'
import { parseCassette } from '../../src/cassette/store'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { fakeOpenAIBatchApi } from '../helpers/openai-batch-api'
import { addFixture, makeScratchProject, REPO, runVitest } from '../support/run-vitest'

const RULES = [
  {
    name: 'emea',
    when: { contains: 'EMEA' },
    respond: { verdict: 'fail' as const, reason: 'the chart shows North America highest' },
  },
]
let live: FakeJudge
let batchWorker: FakeJudge
let server: ReturnType<typeof setupServer>

beforeAll(async () => {
  live = await startFakeJudge({ rules: RULES })
  batchWorker = await startFakeJudge({ rules: RULES })
  const api = fakeOpenAIBatchApi(live.baseURL, async (body) => {
    const res = await fetch(
      bypass(
        new Request(`${batchWorker.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      ),
    )
    const reply = (await res.json()) as {
      choices: Array<{ message: { content: string } }>
      usage: { prompt_tokens: number; completion_tokens: number }
    }
    return { content: reply.choices[0].message.content, usage: reply.usage }
  })
  server = setupServer(...api.handlers)
  server.listen({ onUnhandledRequest: 'bypass' }) // the fake judges' own traffic goes through
}, 60_000)
afterAll(async () => {
  server?.close()
  await live?.close()
  await batchWorker?.close()
})

function project(): string {
  const dir = makeScratchProject('batch-record')
  addFixture(dir, 'cassette.fixture.ts')
  copyFileSync(join(REPO, 'test/fixtures/images/revenue-by-region.png'), join(dir, 'chart.png'))
  return dir
}
const env = () => ({ AGENT_VERDICT_JUDGE: `openai-compatible:${live.baseURL}#fake-judge` })
const entriesOf = (dir: string) => {
  const file = join(dir, '__verdicts__', 'cassette.test.ts.json')
  const { entries } = parseCassette(readFileSync(file, 'utf8'), file)
  return Object.fromEntries(Object.entries(entries).map(([k, { recordedAt: _date, ...rest }]) => [k, rest]))
}

test('record --batch then replay gives the verdicts of a live record, with 0 live judge calls', async () => {
  const liveDir = project()
  const liveRun = await runVitest(liveDir, { ...env(), AGENT_VERDICT_MODE: 'record' })
  expect(liveRun.tests.map((t) => t.status)).toEqual(['passed', 'passed'])
  expect(live.stats.requests).toBe(2)
  live.reset()

  const batchDir = project()
  const out = join(batchDir, 'apply-run.json')
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await recordCommand(
    [
      '--batch',
      '--poll-seconds',
      '0',
      '--',
      process.execPath,
      join(REPO, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--root',
      batchDir,
      '--config',
      join(batchDir, 'vitest.config.mjs'),
      '--reporter=json',
      `--outputFile=${out}`,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NO_COLOR: '1',
        ...env(),
        AGENT_VERDICT_BATCH_DIR: join(batchDir, '.agent-verdict-batch'),
      },
      stdout: { write: (t) => stdout.push(t) },
      stderr: { write: (t) => stderr.push(t) },
    },
  )
  expect(stderr.join('')).toContain('2 judge requests queued')
  expect(code).toBe(0)
  expect(stdout.join('')).toContain('record --batch: 2 of 2 verdicts from the batch\n')
  expect(live.stats.requests).toBe(0) // the batch path never called the judge the tests are configured with
  expect(batchWorker.stats.requests).toBe(2) // the batch lines were judged by the same rules
  const applied = JSON.parse(readFileSync(out, 'utf8')) as {
    testResults: Array<{ assertionResults: Array<{ status: string }> }>
  }
  expect(applied.testResults.flatMap((f) => f.assertionResults.map((a) => a.status))).toEqual(['passed', 'passed'])

  expect(entriesOf(batchDir)).toEqual(entriesOf(liveDir)) // same keys, replies, usage, verdict lines

  // Then CI replays the batch-recorded cassette: passes, 0 calls.
  const replay = await runVitest(batchDir, { ...env(), CI: 'true' })
  expect(replay.tests.map((t) => t.status)).toEqual(['passed', 'passed'])
  expect(live.stats.requests).toBe(0)
}, 180_000)

test('in the collecting run an assertion that needs a verdict is pending and says what to do next', async () => {
  const dir = project()
  const run = await runVitest(dir, {
    ...env(),
    AGENT_VERDICT_BATCH: 'collect',
    AGENT_VERDICT_BATCH_DIR: join(dir, '.batch'),
  })
  expect(run.tests.map((t) => t.status)).toEqual(['failed', 'failed'])
  expect(run.tests[0].failureMessages.join('\n')).toMatch(/verdict pending: faithfulness is queued for batch judging/)
  expect(run.tests[0].failureMessages.join('\n')).toContain('agent-verdict record --batch')
  expect(live.stats.requests).toBe(0)
}, 120_000)
