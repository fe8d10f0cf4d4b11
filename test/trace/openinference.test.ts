import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadTrace } from '../../src/trace/load'
import { newSpan } from '../../src/trace/readers/common'
import { ReadContext } from '../../src/trace/readers/context'
import { applyOpenInference, openInferenceKind } from '../../src/trace/readers/openinference-attributes'
import type { Message, Span } from '../../src/trace/span'
import type { Trace } from '../../src/trace/trace'
import { FIXTURE_DIR, rawSpans, type RawTrailSpan } from '../helpers/trail'

const MULTI_AGENT = join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json')
const PARSING_ERROR = join(FIXTURE_DIR, 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json')

let trace: Trace
let raw: Map<string, RawTrailSpan>
beforeAll(async () => {
  trace = await loadTrace(MULTI_AGENT)
  raw = new Map(rawSpans(JSON.parse(readFileSync(MULTI_AGENT, 'utf8'))).map((s) => [s.span_id, s]))
})

/** Independent ns conversion for the test: whole seconds via Date, the fraction as digits. */
function expectedNs(timestamp: string): bigint {
  const [whole, frac = ''] = timestamp.replace(/Z$/, '').split('.')
  return BigInt(Date.parse(`${whole}Z`)) * 1_000_000n + BigInt(frac.padEnd(9, '0'))
}

describe('TRAIL / OpenInference span mapping', () => {
  it('rebuilds a CodeAgent LLM span: messages, model, tokens (strings → numbers)', () => {
    const span = trace.get('36f0c5ac2614a7b2')!
    const attrs = raw.get('36f0c5ac2614a7b2')!.span_attributes
    expect(span.kind).toBe('llm')
    expect(span.model).toBe('o3-mini')
    expect(span.tokens).toEqual({ prompt: 529, completion: 925, total: 1454 })
    const input = span.input as Message[]
    expect(input).toEqual([{ role: 'user', content: attrs['llm.input_messages.0.message.content'] }])
    expect(span.output).toEqual([{ role: 'assistant', content: attrs['llm.output_messages.0.message.content'] }])
    // The message text is the attribute string itself, not a copy re-parsed from input.value.
    expect(input[0].content).toBe(attrs['llm.input_messages.0.message.content'])
  })

  it('rebuilds a ToolCallingAgent LLM span with its tool call', () => {
    const span = trace.get('101f42b3dad5a0d1')!
    const attrs = raw.get('101f42b3dad5a0d1')!.span_attributes
    const input = span.input as Message[]
    expect(input.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'assistant'])
    expect(input[3].content).toBe(attrs['llm.input_messages.3.message.content'])
    expect(span.output).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'call_l5lA40MeYmgdkQO3xGFtHc8J',
            name: 'inspect_file_as_text',
            arguments: attrs['llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments'],
          },
        ],
      },
    ])
    expect(JSON.parse((span.output as Message[])[0].toolCalls![0].arguments)).toHaveProperty('file_path')
  })

  it('maps a TOOL span: toolName and the kwargs of input.value as toolArgs', () => {
    const span = trace.get('610df94b266f9115')!
    const kwargs = JSON.parse(raw.get('610df94b266f9115')!.span_attributes['input.value']).kwargs
    expect(span.kind).toBe('tool')
    expect(span.toolName).toBe('inspect_file_as_text')
    expect(span.toolArgs).toEqual(kwargs)
    expect(span.toolArgs).toHaveProperty('file_path', 'data/gaia/validation/1f975693-876d-457b-a649-393859e79bf3.mp3')
    expect(span.input).toEqual(kwargs)
    expect(span.output).toBeUndefined()
  })

  it('takes positional args when a tool has no kwargs (FinalAnswerTool)', () => {
    const span = trace.get('9797bcca5c794c95')!
    expect(span.toolName).toBe('final_answer')
    expect(span.toolArgs).toEqual(JSON.parse(raw.get('9797bcca5c794c95')!.span_attributes['input.value']).args)
  })

  it('keeps the exception event of an error span, with its capitalised keys read', () => {
    const span = trace.get('610df94b266f9115')!
    const rawEvent = raw.get('610df94b266f9115')!.events[0]
    expect(span.status).toBe('error')
    expect(span.statusMessage).toMatch(/^FileConversionException: Could not convert/)
    expect(span.events).toHaveLength(1)
    expect(span.events[0].name).toBe('exception')
    expect(span.events[0].attributes['exception.type']).toBe('scripts.mdconvert.FileConversionException')
    // `2025-03-19T17:33:19.324553` has no zone: it is UTC.
    expect(span.events[0].timeNs).toBe(1_742_405_599_324_553_000n)
    expect(span.events[0].timeNs).toBe(expectedNs(rawEvent.Timestamp))
  })

  it('keeps microsecond timestamps and ISO durations exact', () => {
    // timestamp 2025-03-19T17:33:19.304871Z, duration PT0.019777S
    const tool = trace.get('610df94b266f9115')!
    expect(tool.startNs).toBe(1_742_405_599_304_871_000n)
    expect(tool.durationNs).toBe(19_777_000)
    expect(tool.endNs).toBe(1_742_405_599_324_648_000n)
    // timestamp 2025-03-19T17:32:33.275466Z, duration PT1M17.284479S
    const root = trace.get('7978bfadf2821834')!
    expect(root.durationNs).toBe(77_284_479_000)
    for (const span of trace.spans) {
      const r = raw.get(span.id)!
      expect(span.startNs).toBe(expectedNs(r.timestamp))
      const [, m = '0', s] = /^PT(?:(\d+)M)?([\d.]+)S$/.exec(r.duration)!
      const [sec, frac = ''] = s.split('.')
      expect(span.durationNs).toBe(Number(m) * 60e9 + Number(sec) * 1e9 + Number(frac.padEnd(9, '0')))
    }
  })

  it('keeps CHAIN step payloads (Python reprs) raw, with one unparsed-payload warning per trace', () => {
    const steps = trace.spansByKind('chain')
    expect(steps.length).toBeGreaterThan(1)
    for (const step of steps) expect(step.input).toBe(raw.get(step.id)!.span_attributes['input.value'])
    const unparsed = trace.warnings.filter((w) => w.code === 'unparsed-payload')
    expect(unparsed).toHaveLength(1)
    expect(unparsed[0].message).toMatch(/Python repr/)
  })

  it('parses small JSON payloads of other spans (the AGENT task)', () => {
    const agent = trace.get('5e4309f04577d219')!
    expect(agent.kind).toBe('agent')
    expect(agent.input).toEqual(JSON.parse(raw.get('5e4309f04577d219')!.span_attributes['input.value']))
    expect(agent.tokens).toEqual({ prompt: 9918, completion: 2758, total: 12676 })
  })

  it('reports llm/tool spans without input or output in one aggregated warning', () => {
    const missing = trace.warnings.filter((w) => w.code === 'missing-io')
    expect(missing).toHaveLength(1)
    expect(missing[0].message).toMatch(
      /^2 of 11 llm\/tool spans have no input or output: 610df94b266f9115 \(tool:TextInspectorTool, no output\)/,
    )
  })

  it('maps the AgentParsingError step of a CodeAgent run', async () => {
    const t = await loadTrace(PARSING_ERROR)
    const step = t.get('9179faddc634b287')!
    expect(step.kind).toBe('chain')
    expect(step.status).toBe('error')
    expect(step.events[0].attributes['exception.type']).toBe('smolagents.utils.AgentParsingError')
    expect(t.path(step.id)).toEqual(['main', 'answer_single_question', 'CodeAgent.run', 'Step 1'])
  })
})

describe('applyOpenInference on attribute maps (any exporter)', () => {
  const span = (attributes: Record<string, unknown>): Span => {
    const s = newSpan('a1', null, 't1', 'x', 0n, 1n, 'ok', '', attributes, [])
    applyOpenInference(s, new ReadContext())
    return s
  }

  it('maps every openinference.span.kind', () => {
    const kinds = [
      'LLM',
      'TOOL',
      'AGENT',
      'CHAIN',
      'RETRIEVER',
      'EMBEDDING',
      'RERANKER',
      'GUARDRAIL',
      'EVALUATOR',
      'llm',
      'SOMETHING',
    ]
    expect(kinds.map(openInferenceKind)).toEqual([
      'llm',
      'tool',
      'agent',
      'chain',
      'retriever',
      'other',
      'other',
      'other',
      'other',
      'llm',
      'other',
    ])
    expect(openInferenceKind(undefined)).toBe('other')
  })

  it('reads typed (OTLP) values and multi-part message contents', () => {
    const s = span({
      'openinference.span.kind': 'LLM',
      'llm.token_count.prompt': 10,
      'llm.token_count.completion': 2,
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.contents.0.message_content.type': 'text',
      'llm.input_messages.0.message.contents.0.message_content.text': 'What is in',
      'llm.input_messages.0.message.contents.1.message_content.type': 'image',
      'llm.input_messages.0.message.contents.1.message_content.image.image.url': 'data:image/png;base64,AAAA',
      'llm.input_messages.0.message.contents.2.message_content.text': 'this image?',
    })
    expect(s.tokens).toEqual({ prompt: 10, completion: 2, total: 12 })
    expect(s.input).toEqual([{ role: 'user', content: 'What is in\nthis image?' }])
    expect(s.output).toBeUndefined()
  })

  it('keeps a non-JSON-looking tool input as the raw string, and JSON that fails to parse with a warning', () => {
    const ctx = new ReadContext()
    const a = newSpan(
      'a1',
      null,
      't1',
      'x',
      0n,
      1n,
      'ok',
      '',
      { 'openinference.span.kind': 'TOOL', 'input.value': 'plain words' },
      [],
    )
    const b = newSpan(
      'b1',
      null,
      't1',
      'y',
      0n,
      1n,
      'ok',
      '',
      { 'openinference.span.kind': 'TOOL', 'input.value': '{"query": ' },
      [],
    )
    applyOpenInference(a, ctx)
    applyOpenInference(b, ctx)
    expect(a.toolArgs).toBe('plain words')
    expect(b.toolArgs).toBe('{"query": ')
    expect(ctx.warningsFor('t1')).toEqual([expect.objectContaining({ code: 'unparsed-payload', spanId: 'b1' })])
  })
})
