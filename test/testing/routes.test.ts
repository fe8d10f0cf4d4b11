import OpenAI from 'openai'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../src/testing'
import { clientFor, judgeParams } from './client'

let judge: FakeJudge
beforeAll(async () => {
  judge = await startFakeJudge({ model: 'judge-x' })
})
afterAll(() => judge.close())

test('GET /v1/models lists the configured model through the SDK', async () => {
  const models = await clientFor(judge).models.list()
  expect(models.data.map((m) => m.id)).toEqual(['judge-x'])
  expect(judge.baseURL).toBe(`${judge.url}/v1`)
  expect(judge.url).toBe(`http://127.0.0.1:${judge.port}`)
})

test('startedAt puts each call on the caller’s clock: startedAt + at falls within the request', async () => {
  const before = Date.now()
  await clientFor(judge).chat.completions.create(judgeParams({ user: 'when did this arrive?' }))
  const after = Date.now()
  const arrived = judge.startedAt + (judge.calls.at(-1)?.at ?? Number.NaN)
  expect(arrived).toBeGreaterThanOrEqual(before)
  expect(arrived).toBeLessThanOrEqual(after)
})

test('stream: true is rejected with 400 naming the param', async () => {
  const error = await clientFor(judge)
    .chat.completions.create({ ...judgeParams({ user: 'x' }), stream: true })
    .catch((e: unknown) => e)
  expect(error).toBeInstanceOf(OpenAI.BadRequestError)
  expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('stream')
  expect(judge.calls.at(-1)).toMatchObject({ status: 400, rule: null })
})

test('a request without a model echoes the configured model', async () => {
  const res = await fetch(`${judge.baseURL}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
  })
  expect(await res.json()).toMatchObject({ model: 'judge-x', object: 'chat.completion' })
})

test('bad bodies get 400 in OpenAI error JSON; unknown routes 404', async () => {
  const post = (path: string, body: string) =>
    fetch(`${judge.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const notJson = await post('/v1/chat/completions', '{nope')
  expect(notJson.status).toBe(400)
  expect(await notJson.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_json' } })
  const noMessages = await post('/v1/chat/completions', '{"model":"m","messages":[]}')
  expect(noMessages.status).toBe(400)
  expect(await noMessages.json()).toMatchObject({ error: { param: 'messages' } })
  for (const [method, path] of [
    ['POST', '/v1/embeddings'],
    ['GET', '/v1/chat/completions'],
    ['GET', '/'],
  ]) {
    const res = await fetch(`${judge.url}${path}`, { method })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({
      error: {
        message: expect.stringContaining('POST /v1/chat/completions'),
        type: 'invalid_request_error',
        param: null,
        code: 'unknown_url',
      },
    })
  }
  expect(judge.stats.byStatus['404']).toBe(3)
})
