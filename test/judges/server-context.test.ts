// What a local judge server says about its context: llama.cpp's /props, Ollama's /api/show (num_ctx, else the
// model's maximum, which is not what Ollama runs with). Against the loopback stand-in; no network.
import { afterEach, beforeAll, expect, test } from 'vitest'
import { probeServerContext, serverRoot } from '../../src/judges/server-context'
import { startLoopingServer, warmLoopingServer, type LoopingServer } from '../helpers/looping-llm-server'

let server: LoopingServer | undefined
beforeAll(() => warmLoopingServer(), 120_000)
afterEach(async () => {
  await server?.close()
  server = undefined
})

test('llama.cpp: /props default_generation_settings.n_ctx is the context calls get', async () => {
  server = await startLoopingServer({ nCtx: 8192 })
  expect(await probeServerContext(server.baseURL, 'm')).toEqual({
    tokens: 8192,
    source: 'llama.cpp /props n_ctx',
    exact: true,
  })
})

test('Ollama: num_ctx in parameters is exact; without it only the model maximum is known', async () => {
  server = await startLoopingServer({
    nCtx: 1,
    props: false,
    ollamaShow: { parameters: 'stop "<|eot|>"\nnum_ctx 16384' },
  })
  expect(await probeServerContext(server.baseURL, 'm')).toEqual({
    tokens: 16_384,
    source: 'Ollama /api/show num_ctx',
    exact: true,
  })
  await server.close()
  server = await startLoopingServer({
    nCtx: 1,
    props: false,
    ollamaShow: { model_info: { 'qwen2.context_length': 32768 } },
  })
  expect(await probeServerContext(server.baseURL, 'm')).toEqual({
    tokens: 32_768,
    source: 'Ollama /api/show qwen2.context_length',
    exact: false,
  })
})

test('a server that answers neither, or an HTTPS gateway, is not a known size', async () => {
  server = await startLoopingServer({ nCtx: 1, props: false })
  expect(await probeServerContext(server.baseURL, 'm')).toBeUndefined()
  expect(await probeServerContext('https://example.invalid/v1', 'm')).toBeUndefined()
  expect(serverRoot('http://127.0.0.1:11434/v1/')).toBe('http://127.0.0.1:11434')
})
