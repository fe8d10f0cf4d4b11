import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadTrace } from '../../src/trace/load'
import { parseTraces } from '../../src/trace/parse'
import { newSpan } from '../../src/trace/readers/common'
import { ReadContext } from '../../src/trace/readers/context'
import { applyGenAi } from '../../src/trace/readers/genai'
import type { Span } from '../../src/trace/span'
import { createRecorder, legacyGenAiChat, openLlmetryChat, record, at } from '../helpers/otel'

const LEGACY = fileURLToPath(new URL('../fixtures/otlp/genai-legacy.json', import.meta.url))

function mapped(attributes: Record<string, unknown>, events: Span['events'] = []): Span {
  const span = newSpan('s1', null, 't1', 'op', 0n, 1n, 'ok', '', attributes, events)
  applyGenAi(span, new ReadContext())
  return span
}

describe('GenAI semantic conventions', () => {
  it('maps gen_ai.operation.name to kinds', () => {
    const ops = [
      'chat',
      'text_completion',
      'generate_content',
      'execute_tool',
      'invoke_agent',
      'create_agent',
      'embeddings',
    ]
    expect(ops.map((op) => mapped({ 'gen_ai.operation.name': op }).kind)).toEqual([
      'llm',
      'llm',
      'llm',
      'tool',
      'agent',
      'agent',
      'other',
    ])
  })

  it('infers llm from a model or tokens when the operation name is missing', () => {
    expect(mapped({ 'gen_ai.request.model': 'gpt-4o' }).kind).toBe('llm')
    expect(mapped({ 'gen_ai.tool.name': 'search' }).kind).toBe('tool')
    expect(mapped({ 'gen_ai.system': 'openai' }).kind).toBe('other')
  })

  it('prefers the response model and reads old and new token names', () => {
    const s = mapped({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.usage.prompt_tokens': '12',
      'gen_ai.usage.completion_tokens': 3,
    })
    expect(s.model).toBe('gpt-4o-2024-08-06')
    expect(s.tokens).toEqual({ prompt: 12, completion: 3, total: 15 })
  })

  it('reads grouped token counts, and tells of counts it cannot read or a total below its parts', () => {
    const ctx = new ReadContext()
    const read = (attributes: Record<string, unknown>) => {
      const span = newSpan(
        's1',
        null,
        't1',
        'chat',
        0n,
        1n,
        'ok',
        '',
        { 'gen_ai.operation.name': 'chat', ...attributes },
        [],
      )
      applyGenAi(span, ctx)
      return span.tokens
    }
    expect(read({ 'gen_ai.usage.input_tokens': '1,000,000', 'gen_ai.usage.output_tokens': '2 500' })).toEqual({
      prompt: 1_000_000,
      completion: 2_500,
      total: 1_002_500,
    })
    expect(ctx.warningsFor('t1')).toEqual([])
    // A budget must not pass on a total that undercounts: the sum is kept, and the trace says why.
    expect(
      read({ 'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 300, 'gen_ai.usage.total_tokens': 1000 }),
    ).toEqual({
      prompt: 1200,
      completion: 300,
      total: 1500,
    })
    expect(read({ 'gen_ai.usage.input_tokens': 'n/a', 'gen_ai.usage.output_tokens': '1,00' })).toBeUndefined()
    const warnings = ctx.warningsFor('t1')
    expect(warnings.map((w) => w.code)).toEqual(['token-counts', 'token-counts'])
    expect(warnings[0].message).toContain('token total 1000 is below prompt 1200 + completion 300')
    expect(warnings[1].message).toContain('unreadable token counts: prompt "n/a", completion "1,00"')
    // An exporter that writes "n/a" on every span is told of five times, not once per span.
    for (let i = 0; i < 20; i++) read({ 'gen_ai.usage.input_tokens': 'n/a' })
    expect(ctx.warningsFor('t1')).toHaveLength(5)
    expect(ctx.warningsFor('t1')[4].message).toContain('not listed')
  })

  it('reads structured (non-string) messages and tool-call parts', () => {
    const s = mapped({
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': [
        {
          role: 'user',
          parts: [
            { type: 'text', content: 'hi' },
            { type: 'text', content: 'there' },
          ],
        },
      ],
      'gen_ai.output.messages': [
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'c9', name: 'f', arguments: { x: 1 } }] },
      ],
    })
    expect(s.input).toEqual([{ role: 'user', content: 'hi\nthere' }])
    expect(s.output).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 'c9', name: 'f', arguments: '{"x":1}' }] },
    ])
  })

  it('reads an execute_tool span: name, parsed arguments, result', () => {
    const s = mapped({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.arguments': '{"city":"Paris"}',
      'gen_ai.tool.call.result': '{"temp":21}',
    })
    expect(s.toolName).toBe('get_weather')
    expect(s.toolArgs).toEqual({ city: 'Paris' })
    expect(s.input).toEqual({ city: 'Paris' })
    expect(s.output).toEqual({ temp: 21 })
  })

  it('reads the older gen_ai.content.prompt / completion events', () => {
    const s = mapped({ 'gen_ai.operation.name': 'chat' }, [
      {
        name: 'gen_ai.content.prompt',
        timeNs: 0n,
        attributes: { 'gen_ai.prompt': '[{"role":"user","content":"2+2?"}]' },
      },
      {
        name: 'gen_ai.content.completion',
        timeNs: 1n,
        attributes: { 'gen_ai.completion': '[{"role":"assistant","content":"4"}]' },
      },
    ])
    expect(s.input).toEqual([{ role: 'user', content: '2+2?' }])
    expect(s.output).toEqual([{ role: 'assistant', content: '4' }])
  })

  it('reads per-message events and gen_ai.choice recorded by the SDK', () => {
    const rec = createRecorder({ seed: 21 })
    legacyGenAiChat(rec.tracer)
    const [trace] = parseTraces(rec.otlpJson())
    const chat = trace.roots[0]
    expect(chat.kind).toBe('llm')
    expect(chat.tokens).toEqual({ prompt: 40, completion: 9, total: 49 })
    expect(chat.input).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
    ])
    expect(chat.output).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    ])
  })

  it('reads OpenLLMetry gen_ai.prompt.N / gen_ai.completion.N attributes', () => {
    const rec = createRecorder({ seed: 22 })
    openLlmetryChat(rec.tracer)
    const chat = parseTraces(rec.otlpJson())[0].roots[0]
    expect(chat.kind).toBe('llm')
    expect(chat.model).toBe('gpt-4o')
    expect(chat.input).toEqual([{ role: 'user', content: 'Say hi' }])
    expect(chat.output).toEqual([{ role: 'assistant', content: 'Hi!' }])
  })

  it('loads the committed legacy fixture (two root chat spans of two traces)', () => {
    const traces = parseTraces(readFileSync(LEGACY, 'utf8'))
    expect(traces.map((t) => t.roots[0].name)).toEqual(['chat gpt-3.5-turbo', 'openai.chat'])
  })

  it('leaves plain OTel spans (no convention) as kind other', async () => {
    const rec = createRecorder({ seed: 23 })
    record(rec.tracer, { name: 'GET /orders', start: at(0), end: at(5), attributes: { 'http.request.method': 'GET' } })
    const trace = await loadTrace(rec.spans())
    expect(trace.roots[0].kind).toBe('other')
    expect(trace.roots[0].input).toBeUndefined()
  })
})

describe('GenAI message text', () => {
  it('is the same text whether or not the attribute JSON escapes it, for long and short messages', () => {
    const plain = 'You are a research agent. Use the tools to answer the question, cite what you find. '.repeat(4)
    const escaped = 'Line one "quoted"\nline two with a backslash \\ and more text to pass sixty-four characters.'
    const messages = [
      { role: 'system', parts: [{ type: 'text', content: plain }] },
      { role: 'user', parts: [{ type: 'text', content: escaped }] },
      { role: 'user', parts: [{ type: 'text', content: 'short' }] },
    ]
    const span = newSpan(
      '0000000000000001',
      null,
      't',
      'chat',
      0n,
      1n,
      'ok',
      '',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': JSON.stringify(messages) },
      [],
    )
    applyGenAi(span, new ReadContext())
    expect(span.input).toEqual([
      { role: 'system', content: plain },
      { role: 'user', content: escaped },
      { role: 'user', content: 'short' },
    ])
  })
})
