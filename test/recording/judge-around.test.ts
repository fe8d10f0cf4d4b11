// Judge calls made in a recording test process go around the recorder's patch (issue 32): on Node's own
// `http.request`, so the judge transport's parked connection and keep-alive agent carry them, and the recorder
// never sees them. With a user's msw beside the recorder, they go through the patch again, for msw to answer.
import { AsyncLocalStorage } from 'node:async_hooks'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { asJudgeTraffic, transportAroundRecordings } from '../../src/config/judge-traffic'
import { parkedConnections, preconnect, transportFetch } from '../../src/judges/http-transport'
import { beginFileRecording, endFileRecording, endTestRecording } from '../../src/recording/recorder'
import { recordingPathFor } from '../../src/recording/store'

const current = new AsyncLocalStorage<{ test: string; attempt: string }>()
let server: Server
let base: string
let connections = 0
let dir: string
const saved = process.env.AGENT_VERDICT_MODE

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'av-judge-around-'))
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.end(JSON.stringify({ ok: true })))
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(async () => {
  await endFileRecording({ complete: false })
  if (saved === undefined) delete process.env.AGENT_VERDICT_MODE
  else process.env.AGENT_VERDICT_MODE = saved
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

const judgeCall = () =>
  current.run({ test: 'a', attempt: '0.0' }, () =>
    asJudgeTraffic(() => transportFetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' })),
  )

it('sends judge calls on the parked connection and keeps it alive while recordings intercept, recording none', async () => {
  const file = join(dir, 'judge.eval.ts')
  process.env.AGENT_VERDICT_MODE = 'record'
  const before = connections
  expect(preconnect(base, 1)).toBe(1)
  await expect.poll(() => connections).toBe(before + 1) // the parked connection is open
  beginFileRecording(file, {}, () => current.getStore(), { update: false })
  expect(transportAroundRecordings()).toBeDefined()
  for (let i = 0; i < 3; i++) expect((await judgeCall()).status).toBe(200)
  expect(parkedConnections(base)).toBe(0)
  // All three on the one connection opened ahead: none was opened for the calls.
  expect(connections).toBe(before + 1)
  expect(await endTestRecording('a', '0.0')).toBeUndefined()
  await endFileRecording({ complete: true })
  expect(existsSync(recordingPathFor(file))).toBe(false)
})

it("sends judge calls through the patch while a user's msw listens, for its handlers to answer", async () => {
  const mocked = setupServer(http.post(`${base}/v1/chat/completions`, () => HttpResponse.json({ mocked: true })))
  mocked.listen({ onUnhandledRequest: 'bypass' })
  try {
    process.env.AGENT_VERDICT_MODE = 'record'
    beginFileRecording(join(dir, 'msw.eval.ts'), {}, () => current.getStore(), { update: false })
    expect(transportAroundRecordings()).toBeUndefined()
    expect(await (await judgeCall()).json()).toEqual({ mocked: true })
  } finally {
    await endFileRecording({ complete: false })
    mocked.close()
  }
})
