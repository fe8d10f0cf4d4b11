// Replayed calls keep the trace honest (decision 0035): the recording layer calls noteReplayedCall in the
// request's async context, and the captured spans last as long as the recorded calls did. Here the test plays
// the recording layer: a local server answers at once, as a replay does, and the client notes the recorded time.
import '../../matchers/vitest'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { trace } from '@opentelemetry/api'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { captureTrace } from '../../src/capture/capture-trace'
import { noteReplayedCall, onReplayedCall } from '../../src/recording/replay-timing'
import type { Span } from '../../src/trace/span'
import { thrownBy } from '../matchers/trace/helpers'

const tracer = trace.getTracer('replayed-agent')
let server: Server
let url: string

beforeAll(async () => {
  // A chat-completions answer with the usage the recorded call had.
  server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json')
    res.end(
      JSON.stringify({
        choices: [{ message: { role: 'assistant', content: 'It has shipped.' } }],
        usage: { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 },
      }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

/**
 * A model call instrumented the way OTel GenAI instrumentations do it: a span around the request, usage read
 * from the response body. `recordedMs` set: the answer counts as replayed from a recording that took that long.
 */
async function chat(recordedMs?: number): Promise<string> {
  return tracer.startActiveSpan(
    'chat gpt-4o-mini',
    { attributes: { 'gen_ai.operation.name': 'chat' } },
    async (span) => {
      span.addEvent('request sent')
      const body = (await (await fetch(url, { method: 'POST', body: '{}' })).json()) as {
        choices: Array<{ message: { content: string } }>
        usage: { prompt_tokens: number; completion_tokens: number }
      }
      if (recordedMs !== undefined) noteReplayedCall({ url, recordedMs })
      span.addEvent('response read')
      span.setAttributes({
        'gen_ai.usage.input_tokens': body.usage.prompt_tokens,
        'gen_ai.usage.output_tokens': body.usage.completion_tokens,
      })
      span.end()
      return body.choices[0].message.content
    },
  )
}

async function tool(): Promise<void> {
  await tracer.startActiveSpan(
    'execute_tool lookup_order',
    { attributes: { 'gen_ai.tool.name': 'lookup_order' } },
    async (span) => {
      await new Promise((resolve) => setTimeout(resolve, 2))
      span.end()
    },
  )
}

/** invoke_agent › chat (replayed when `recordedMs` is given), execute_tool. */
function agent(recordedMs?: number) {
  return tracer.startActiveSpan('invoke_agent support', async (span) => {
    const answer = await chat(recordedMs)
    await tool()
    span.end()
    return answer
  })
}

const ms = (s: Span) => Number(s.durationNs) / 1e6
const byName = (spans: readonly Span[], name: string) => spans.find((s) => s.name === name)!

describe('a replayed call inside captureTrace', () => {
  test('its span and the spans around it last the recorded time; later spans move after it; nesting holds', async () => {
    const run = await captureTrace(() => agent(1500))
    const [root, llm, toolSpan] = ['invoke_agent support', 'chat gpt-4o-mini', 'execute_tool lookup_order'].map((n) =>
      byName(run.trace.spans, n),
    )
    expect(ms(llm)).toBeGreaterThanOrEqual(1500)
    expect(ms(root)).toBeGreaterThanOrEqual(1500)
    // The tool call came after the model call: it still starts after it ends, and inside its parent.
    expect(toolSpan.startNs + 1_000_000n).toBeGreaterThanOrEqual(llm.endNs)
    // Within 1 ms: the SDK starts each span's clock at Date.now(), in whole milliseconds, so live spans nest
    // only to the millisecond too.
    const MS = 1_000_000n
    for (const child of [llm, toolSpan]) {
      expect(child.startNs + MS).toBeGreaterThanOrEqual(root.startNs)
      expect(child.endNs).toBeLessThanOrEqual(root.endNs + MS)
    }
    // The event before the call keeps its time; the one after moves with it.
    const [sent, read] = llm.events
    expect(Number(sent.timeNs - llm.startNs) / 1e6).toBeLessThan(1500)
    expect(Number(read.timeNs - llm.startNs) / 1e6).toBeGreaterThanOrEqual(1500)
    expect(read.timeNs).toBeLessThanOrEqual(llm.endNs)
    // The budget means what it meant where the call was recorded.
    expect(thrownBy(() => expect(run).toStayWithinBudget({ latencyMs: 1000 })).message).toMatch(
      /✗ latencyMs: [1-9],\d{3} ms > limit 1,000 ms — crossed at llm:chat gpt-4o-mini/,
    )
  })

  test('the same run without a replayed call stays within that budget (the note is what changed it)', async () => {
    const run = await captureTrace(() => agent())
    expect(ms(byName(run.trace.spans, 'chat gpt-4o-mini'))).toBeLessThan(1000)
    expect(run).toStayWithinBudget({ latencyMs: 1000 })
  })

  test('token usage comes from the response body the instrumentation read', async () => {
    const run = await captureTrace(() => agent(800))
    expect(byName(run.trace.spans, 'chat gpt-4o-mini').tokens).toMatchObject({ prompt: 1234, completion: 56 })
    expect(thrownBy(() => expect(run).toStayWithinBudget({ tokens: 1000 })).message).toMatch(
      /✗ tokens: 1,290 tokens > limit 1,000 tokens/,
    )
  })

  test('concurrent captures: a replayed call lengthens only its own capture', async () => {
    const [replayed, live] = await Promise.all([captureTrace(() => agent(1200)), captureTrace(() => agent())])
    expect(ms(replayed.trace.roots[0])).toBeGreaterThanOrEqual(1200)
    expect(ms(live.trace.roots[0])).toBeLessThan(1000)
  })

  test('a replayed call outside any capture changes nothing and breaks nothing', async () => {
    await expect(chat(1500)).resolves.toBe('It has shipped.')
  })
})

describe('noteReplayedCall', () => {
  test('a throwing listener never breaks the replay; the others still hear the call; unsubscribe stops it', () => {
    const heard: number[] = []
    const stopThrowing = onReplayedCall(() => {
      throw new Error('listener bug')
    })
    const stop = onReplayedCall(({ recordedMs }) => heard.push(recordedMs))
    expect(() => noteReplayedCall({ url: 'http://127.0.0.1/x', recordedMs: 7 })).not.toThrow()
    stop()
    stopThrowing()
    noteReplayedCall({ url: 'http://127.0.0.1/x', recordedMs: 8 })
    expect(heard).toEqual([7])
  })
})
