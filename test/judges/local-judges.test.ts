// Issue 35, "local judges that work": against a stand-in for a llama.cpp server whose model loops until a token
// limit, every judge call carries an output bound, ends unjudgeable with the setting to change named, and diagnose
// with ";context=8k" never sends a prompt that does not fit 8k tokens. No network: the stand-in is on 127.0.0.1.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { calibrateCommand } from '../../src/cli/calibrate'
import { diagnoseCommand } from '../../src/cli/diagnose'
import { defineJudge, parseJudgeSpec } from '../../src/judges/config'
import { openaiJudge } from '../../src/judges/openai'
import { correctnessMetric } from '../../src/metrics/correctness'
import { METRIC_OUTPUT_TOKENS, runMetric } from '../../src/metrics/run-metric'
import { startLoopingServer, warmLoopingServer, type LoopingServer } from '../helpers/looping-llm-server'
import { FIXTURE_DIR } from '../helpers/trail'

// The largest TRAIL fixture: its spans are far over 8k tokens, so only a fitted prompt fits.
const BIG_TRACE = join(FIXTURE_DIR, '72822db6e120878d916b515c2501246b.json')

let server: LoopingServer | undefined
// The stand-in's tokenizer and the OpenAI SDK load once, here, not inside the first test's time.
beforeAll(async () => {
  await warmLoopingServer()
  await import('openai')
}, 120_000)
afterEach(async () => {
  await server?.close()
  server = undefined
})

function sink() {
  let text = ''
  return { stream: { write: (chunk: string) => ((text += chunk), true) }, text: () => text }
}

const judgeAt = (s: LoopingServer, options: { maxOutputTokens?: number } = {}) =>
  openaiJudge({ model: 'looper', baseURL: s.baseURL, maxWaitMs: 5000, ...options })

describe('a looping local model', { timeout: 60_000 }, () => {
  test('an output metric sends its bound; the cut-off reply is unjudgeable and names the spec and server settings', async () => {
    server = await startLoopingServer({ nCtx: 32_768 })
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'Paris', reference: 'Paris' },
      { judge: judgeAt(server) },
    )
    expect(verdict.outcome).toBe('unjudgeable')
    // Not retried: the same request is cut off the same way again.
    expect(server.calls).toHaveLength(1)
    const [call] = server.calls
    expect(call.maxTokens).toBe(METRIC_OUTPUT_TOKENS)
    expect(call.generated).toBeLessThanOrEqual(call.maxTokens!)
    expect(call.ended).toBe('length')
    expect(verdict.reason).toContain('finish_reason "length"')
    expect(verdict.reason).toContain(`;maxOutputTokens=${2 * METRIC_OUTPUT_TOKENS}`)
    expect(verdict.reason).toContain('llama-server -n N')
    expect(verdict.reason).toContain('num_predict')
    expect(verdict.reason).not.toContain('raise maxOutputTokens')
  })

  test('a reply the server cut before the bound names the server setting first', async () => {
    server = await startLoopingServer({ nCtx: 32_768, nPredict: 200 })
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'Paris', reference: 'Paris' },
      { judge: judgeAt(server) },
    )
    expect(verdict.outcome).toBe('unjudgeable')
    expect(server.calls[0]).toMatchObject({ maxTokens: METRIC_OUTPUT_TOKENS, generated: 200 })
    expect(verdict.reason).toContain(
      `after 200 tokens, before the ${METRIC_OUTPUT_TOKENS} the request allowed: the server stopped it first`,
    )
    expect(verdict.reason).toContain('llama-server -n N')
  })

  test(';maxOutputTokens=N in the judge spec is the bound every call sends', async () => {
    server = await startLoopingServer({ nCtx: 32_768 })
    const judge = defineJudge(parseJudgeSpec(`openai-compatible:${server.baseURL}#looper;maxOutputTokens=300;retry=5s`))
    await runMetric(correctnessMetric, { output: 'Paris', reference: 'Paris' }, { judge })
    expect(server.calls.map((c) => c.maxTokens)).toEqual([300])
  })

  test('llama.cpp\u2019s 500 "Context size has been exceeded" is named with what to do, and not retried', async () => {
    // A 1k context: the prompt fits, the reply's bound runs into the context's end.
    server = await startLoopingServer({ nCtx: 1200 })
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'Paris', reference: 'Paris' },
      { judge: judgeAt(server) },
    )
    expect(verdict.outcome).toBe('unjudgeable')
    expect(server.calls.map((c) => c.ended)).toEqual(['context-500'])
    expect(verdict.reason).toContain('Context size has been exceeded')
    expect(verdict.reason).toContain('do not fit the server\u2019s context window')
    expect(verdict.reason).toContain(';concurrency=1')
    expect(verdict.reason).toContain('llama.cpp -c')
  })

  test('llama.cpp\u2019s 400 exceed_context_size_error is named the same way', async () => {
    server = await startLoopingServer({ nCtx: 100 })
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'Paris', reference: 'Paris' },
      { judge: judgeAt(server) },
    )
    expect(server.calls.map((c) => c.ended)).toEqual(['context-400'])
    expect(verdict.reason).toContain('do not fit the server\u2019s context window')
  })

  test('calibrate sends the bound, and with nothing judged exits 3 saying so', async () => {
    server = await startLoopingServer({ nCtx: 32_768 })
    const dir = mkdtempSync(join(tmpdir(), 'av-local-calibrate-'))
    const file = join(dir, 'cases.json')
    const cases = [1, 2].map((i) => ({
      id: `c${i}`,
      instruction: 'Q?',
      reference: 'A',
      response: 'A',
      labels: { correctness: 1 },
    }))
    writeFileSync(file, JSON.stringify({ cases }))
    const out = sink()
    const err = sink()
    const code = await calibrateCommand(
      [file, '--judge', `openai-compatible:${server.baseURL}#looper;retry=5s`, '--mode', 'live'],
      { stdout: out.stream, stderr: err.stream, env: {} },
    )
    expect(code).toBe(3)
    expect(server.calls.map((c) => c.maxTokens)).toEqual([METRIC_OUTPUT_TOKENS, METRIC_OUTPUT_TOKENS])
    expect(err.text()).toContain('correctness: no case was judged (2 unjudgeable)')
    expect(out.text()).toContain("Cohen's κ undefined (undefined: no case was judged (2 unjudgeable, reasons below))")
    expect(out.text()).toContain('num_predict')
  })
})

describe('diagnose against a small context', { timeout: 60_000 }, () => {
  async function diagnose(spec: string) {
    const out = sink()
    const err = sink()
    const code = await diagnoseCommand([BIG_TRACE, '--judge', spec, '--format', 'json'], {
      stdout: out.stream,
      stderr: err.stream,
    })
    return { code, stdout: out.text(), stderr: err.text() }
  }

  test.each([
    ['the spec says it (;context=8k), the server does not', { props: false }, ';context=8k;concurrency=2'],
    ['the server says it (/props n_ctx), the spec does not', { props: true }, ';concurrency=2'],
  ])(
    '%s: no prompt plus its bound is over 8k tokens',
    async (_, props, options) => {
      server = await startLoopingServer({ nCtx: 8192, ...props })
      const { code, stderr } = await diagnose(`openai-compatible:${server.baseURL}#looper${options};retry=5s`)
      expect(server.calls.length).toBeGreaterThan(4)
      for (const call of server.calls) {
        expect(call.maxTokens).toBeDefined()
        expect(call.promptTokens + call.maxTokens!).toBeLessThanOrEqual(8192)
        expect(call.ended).toBe('length')
      }
      // The looping model gave no verdict: unjudgeable, with the server settings named.
      expect(code).toBe(3)
      expect(stderr).not.toContain('Context size has been exceeded')
    },
    60_000,
  )

  test('control: without the context known, the same trace sends prompts that do not fit 8k', async () => {
    server = await startLoopingServer({ nCtx: 8192, props: false })
    await diagnose(`openai-compatible:${server.baseURL}#looper;concurrency=2;retry=5s`)
    expect(server.calls.some((c) => c.promptTokens + (c.maxTokens ?? 0) > 8192)).toBe(true)
  }, 60_000)

  test('a server context too small for diagnose is refused before any judge call, saying how to grow it', async () => {
    server = await startLoopingServer({ nCtx: 4096 })
    const { code, stderr } = await diagnose(`openai-compatible:${server.baseURL}#looper`)
    expect(code).toBe(2)
    expect(server.calls).toHaveLength(0)
    expect(server.probes).toContain('/props')
    expect(stderr).toContain('context of 4096 tokens (llama.cpp /props n_ctx)')
    expect(stderr).toMatch(/llama\.cpp -c \d+/)
  })

  test('a spec claiming more context than the server has is refused before any judge call', async () => {
    server = await startLoopingServer({ nCtx: 8192 })
    const { code, stderr } = await diagnose(`openai-compatible:${server.baseURL}#looper;context=16k`)
    expect(code).toBe(2)
    expect(server.calls).toHaveLength(0)
    expect(stderr).toContain('the judge spec says context=16384, but the server runs looper with 8192 tokens')
    expect(stderr).toContain('set context=8192')
  })

  test('Ollama without num_ctx: the silent truncation is named before judging', async () => {
    server = await startLoopingServer({
      nCtx: 32_768,
      props: false,
      ollamaShow: { parameters: 'temperature 0', model_info: { 'llama.context_length': 131072 } },
    })
    const { stderr } = await diagnose(`openai-compatible:${server.baseURL}#looper;retry=5s`)
    expect(server.probes).toEqual(['/props', '/api/show'])
    expect(stderr).toContain('cuts longer prompts without an error')
    expect(stderr).toContain('PARAMETER num_ctx')
  }, 60_000)
})
