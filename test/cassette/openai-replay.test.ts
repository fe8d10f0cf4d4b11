// The cassette over the real openai SDK and provider, against a 127.0.0.1 server that counts calls.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { cassettePathFor } from '../../src/cassette/store'
import { openaiJudge } from '../../src/judges/openai'
import { loadImage } from '../../src/media/load'
import { toImagePart } from '../../src/media/loaded-image'
import { tempDir, verdictRequest } from './helpers'

const ENV_KEY = 'sk-planted-env-5f0c2a9d41b7e863'
const CONFIG_KEY = 'sk-planted-config-93ad04c7e12f58b6'
const seen: { authorization?: string; path?: string }[] = []
let server: Server
let baseURL: string
let savedKey: string | undefined

beforeAll(async () => {
  savedKey = process.env.OPENAI_API_KEY
  process.env.OPENAI_API_KEY = ENV_KEY
  server = createServer((req, res) => {
    seen.push({ authorization: req.headers.authorization, path: req.url })
    req.resume()
    req.on('end', () => {
      const content = JSON.stringify({ reasoning: 'North America is the tallest bar at $14.10.', score: 4 })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4.1',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, refusal: null } }],
          usage: { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940 },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})

afterAll(async () => {
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY
  else process.env.OPENAI_API_KEY = savedKey
  await new Promise((resolve) => server.close(resolve))
})

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
}

describe('cassette over the real openai provider', () => {
  it('records once over HTTP, replays with 0 HTTP calls, and stores no key or header', async () => {
    const dir = tempDir()
    const file = cassettePathFor(join(dir, 'chart.test.ts'))
    const image = toImagePart(await loadImage(new URL('../fixtures/images/revenue-by-region.png', import.meta.url)))
    const request = verdictRequest('Which region has the highest revenue? Answer: North America, $14.10.', {
      images: [image],
    })
    const messages: string[] = []

    const configured = () => openaiJudge({ model: 'gpt-4.1', apiKey: CONFIG_KEY, baseURL, provider: 'openai' })
    const recorded = await withCassette(configured(), { file, mode: 'auto' }).evaluate(request)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toEqual({ authorization: `Bearer ${CONFIG_KEY}`, path: '/v1/chat/completions' }) // the key was really sent
    expect(recorded).toMatchObject({
      cached: false,
      output: { score: 4 },
      usage: { inputTokens: 900, outputTokens: 40 },
    })

    const replayed = await withCassette(configured(), { file, mode: 'replay' }).evaluate(request)
    const fromEnv = await withCassette(openaiJudge({ model: 'gpt-4.1', baseURL, provider: 'openai' }), {
      file,
      env: { CI: 'true' },
    }).evaluate(request)
    expect(seen).toHaveLength(1) // replay made no HTTP call
    expect(replayed).toMatchObject({
      cached: true,
      attempts: 0,
      output: recorded.output,
      usage: recorded.usage,
      costUsd: recorded.costUsd,
    })
    expect(fromEnv.cached).toBe(true)

    // Error paths: a replay miss, then a corrupt cassette.
    const miss = await withCassette(configured(), { file, mode: 'replay' })
      .evaluate(verdictRequest('not recorded'))
      .catch((e: Error) => e)
    messages.push(String(miss), (miss as Error).stack ?? '')
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n<<<<<<< HEAD\n`)
    const corrupt = await withCassette(configured(), { file, mode: 'auto' })
      .evaluate(request)
      .catch((e: Error) => e)
    messages.push(String(corrupt), (corrupt as Error).stack ?? '')
    expect(messages[0]).toContain('no recorded verdict for faithfulness')
    expect(messages[2]).toContain('is not valid JSON')

    const files = filesUnder(dir)
    expect(files).toEqual([file])
    for (const text of [...files.map((f) => readFileSync(f, 'utf8')), ...messages]) {
      expect(text).not.toContain('sk-planted')
      expect(text).not.toMatch(/authorization|bearer/i)
    }
  })
})
