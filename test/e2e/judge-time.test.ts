// Judge time that fits the runner (issue 11, item 4), through the real Vitest and Jest CLIs with
// their default 5 s test timeout: a closed judge port and a judge slower than the timeout fail the
// test before the runner's own timeout, with a message naming the judge and what happened; a judge
// answering after 7 s under a long enough per-test timeout passes, and never reads as "not awaited".
import { copyFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { jestTest, makeJestProject, runJest } from '../support/run-jest'
import { REPO, byTitle, makeScratchProject, runVitest } from '../support/run-vitest'

let slow: FakeJudge
let closedURL: string
const dirs: string[] = []

/** A port that was just free and is now closed: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as { port: number }
  await new Promise((done) => server.close(done))
  return port
}

beforeAll(async () => {
  slow = await startFakeJudge({ latencyMs: 7_000 })
  closedURL = `http://127.0.0.1:${await closedPort()}/v1`
})
afterAll(async () => {
  await slow.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const env = () => ({
  AGENT_VERDICT_JUDGE: `openai-compatible:${slow.baseURL}#slow-judge`,
  AGENT_VERDICT_MODE: 'live',
  CLOSED_JUDGE_URL: closedURL,
})

interface Outcome {
  status: string
  duration?: number
  failureMessages: string[]
}

function expectTimely(outcome: Outcome, runnerTimeout: RegExp) {
  const message = outcome.failureMessages.join('\n')
  expect(message).not.toMatch(runnerTimeout)
  expect(message).not.toContain('was not awaited')
  return message
}

describe('judge time under Vitest (default 5 s testTimeout)', () => {
  test('closed port and slow judge fail before the timeout naming the judge; a 7 s judge under a 20 s timeout passes', async () => {
    const dir = makeScratchProject('judge-time')
    dirs.push(dir)
    // No testTimeout: Vitest's default 5 s.
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { include: ['**/*.test.ts'], setupFiles: [${JSON.stringify(join(REPO, 'matchers/vitest.ts'))}] } }\n`,
    )
    copyFileSync(join(REPO, 'test/e2e/fixtures/judge-time/vitest.fixture.ts'), join(dir, 'judge-time.test.ts'))
    const run = await runVitest(dir, env())
    const timedOut = /Test timed out in \d+ms/

    const closed = byTitle(run, 'judge port closed, default timeout') as Outcome
    expect(closed.status).toBe('failed')
    const closedMessage = expectTimely(closed, timedOut)
    expect(closedMessage).toContain(`openai-compatible:closed-judge at ${closedURL} connection refused (ECONNREFUSED)`)
    expect(closedMessage).toContain('is the judge server running at that address?')
    expect(closed.duration).toBeLessThan(5_000) // the few quick tries, not ~54 s (the runner would have stopped it at 5 s)

    const hanging = byTitle(run, 'judge slower than the default timeout') as Outcome
    expect(hanging.status).toBe('failed')
    const hangingMessage = expectTimely(hanging, timedOut)
    expect(hangingMessage).toContain(
      `openai-compatible:slow-judge at ${slow.baseURL} gave no verdict before the test's 5.0 s timeout`,
    )
    expect(hangingMessage).toMatch(/no answer after \d+\.\d s/)
    expect(hangingMessage).toContain('60 s is recommended for judge tests')

    const patient = byTitle(run, 'judge answers after 7 s within a 20 s per-test timeout') as Outcome
    expect(patient.failureMessages).toEqual([])
    expect(patient.status).toBe('passed')
    expect(run.stdout + run.stderr).not.toContain('was not awaited')
  }, 120_000)
})

describe('judge time under Jest (default 5 s testTimeout)', () => {
  test('closed port and slow judge fail before the timeout naming the judge; a 7 s judge under a 20 s timeout passes', async () => {
    const dir = makeJestProject('judge-time-jest')
    dirs.push(dir)
    copyFileSync(join(REPO, 'test/e2e/fixtures/judge-time/jest.fixture.ts'), join(dir, 'judge-time.test.ts'))
    const run = await runJest(dir, env())
    const timedOut = /Exceeded timeout of \d+ ms/

    const closed = jestTest(run, 'judge port closed, default timeout') as Outcome
    expect(closed.status).toBe('failed')
    const closedMessage = expectTimely(closed, timedOut)
    expect(closedMessage).toContain(`openai-compatible:closed-judge at ${closedURL} connection refused (ECONNREFUSED)`)

    const hanging = jestTest(run, 'judge slower than the default timeout') as Outcome
    expect(hanging.status).toBe('failed')
    const hangingMessage = expectTimely(hanging, timedOut)
    expect(hangingMessage).toContain(
      `openai-compatible:slow-judge at ${slow.baseURL} gave no verdict before the test's 5.0 s timeout`,
    )
    expect(hangingMessage).toContain('testTimeout in jest.config')

    const patient = jestTest(run, 'judge answers after 7 s within a 20 s per-test timeout') as Outcome
    expect(patient.failureMessages).toEqual([])
    expect(patient.status).toBe('passed')
    expect(run.stdout + run.stderr).not.toContain('was not awaited')
  }, 120_000)
})
