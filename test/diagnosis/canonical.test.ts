// The canonical view: positional ids and an order that does not depend on exporter order or span ids.
import { describe, expect, test } from 'vitest'
import { canonicalView } from '../../src/diagnosis/canonical'
import { spanPrompt } from '../../src/diagnosis/span-context'
import { SpanJudgementSchema } from '../../src/diagnosis/span-judgement'
import { compactSteps } from '../../src/diagnosis/steps'
import { SYSTEM } from '../../src/metrics/prompts/span-diagnosis'
import type { Span } from '../../src/trace/span'
import { Trace } from '../../src/trace/trace'

const MS = 1_000_000n
const T0 = 1_767_000_000_000n * MS

/** A span starting `startMs` after T0 (whole ms, as the OTel SDK records starts) and lasting `durUs` µs. */
function span(id: string, parentId: string | null, startMs: number, durUs: number, extra: Partial<Span>): Span {
  const startNs = T0 + BigInt(startMs) * MS
  return {
    id,
    parentId,
    traceId: 't',
    name: id,
    kind: 'other',
    startNs,
    endNs: startNs + BigInt(durUs) * 1000n,
    durationNs: durUs * 1000,
    status: 'unset',
    statusMessage: '',
    attributes: {},
    events: [],
    ...extra,
  }
}

/** One run with given span ids; `order` permutes the list as an exporter would (end order varies). */
function run(ids: Record<string, string>, order: number[]): Trace {
  const spans = [
    span(ids.root, null, 0, 9_000, {
      name: 'invoke_agent support',
      kind: 'agent',
      input: { task: 'Where is order A-1042?' },
    }),
    span(ids.chat, ids.root, 0, 300, { name: 'chat', kind: 'llm', output: 'calling both tools' }),
    // Parallel tool calls: same millisecond start.
    span(ids.weather, ids.root, 0, 2_100, {
      name: 'execute_tool get_weather',
      kind: 'tool',
      toolName: 'get_weather',
      toolArgs: { city: 'Lyon' },
      output: 'dry',
    }),
    span(ids.order, ids.root, 0, 1_700, {
      name: 'execute_tool lookup_order',
      kind: 'tool',
      toolName: 'lookup_order',
      toolArgs: { id: 'A-1042' },
      output: 'shipped',
    }),
    span(ids.answer, ids.root, 2, 400, { name: 'chat', kind: 'llm', output: 'It has shipped; no rain expected.' }),
  ]
  return new Trace(order.map((i) => spans[i]))
}

const FIRST = { root: 'a1', chat: 'a2', weather: 'a3', order: 'a4', answer: 'a5' }
const SECOND = { root: 'f9', chat: 'f8', weather: 'f7', order: 'f6', answer: 'f5' }

describe('canonicalView', () => {
  test('gives positional ids and an order independent of span ids and exporter order', () => {
    const a = run(FIRST, [0, 1, 2, 3, 4])
    const b = run(SECOND, [4, 3, 1, 2, 0])
    const describe = (t: Trace) => canonicalView(t).spans.map((s) => `${canonicalView(t).position(s.id)} ${s.name}`)
    expect(describe(a)).toEqual(describe(b))
    // Start time first; the two tools tie and are ordered by content (kind, then name …).
    expect(describe(a)).toEqual([
      '1 invoke_agent support',
      '1.1 chat',
      '1.2 execute_tool get_weather',
      '1.3 execute_tool lookup_order',
      '1.4 chat',
    ])
    expect(canonicalView(a).position('missing')).toBe('')
    expect(canonicalView(a).index('missing')).toBe(-1)
  })

  test('span prompts are equal across captures, hold no span id, and list a parallel call that ended after the next step began', () => {
    const prompts = (t: Trace) => {
      const steps = compactSteps(t)
      return t.spans
        .filter((s) => s.kind === 'llm' || s.kind === 'tool')
        .map(
          (s) =>
            spanPrompt(t, s, {
              system: SYSTEM,
              schema: SpanJudgementSchema,
              budgetTokens: 8_000,
              steps,
              contextSteps: 4,
            }).text,
        )
        .sort()
    }
    const a = prompts(run(FIRST, [0, 1, 2, 3, 4]))
    expect(prompts(run(SECOND, [0, 3, 2, 4, 1]))).toEqual(a)
    for (const id of Object.values(FIRST)) expect(a.join('\n')).not.toMatch(new RegExp(`\\b${id}\\b`))
    const closing = a.find((p) => p.includes('It has shipped'))!
    // Both tool calls come before the closing chat, however their end times fall.
    expect(closing).toMatch(/call get_weather\(.*\) → ok: dry\n.*call lookup_order\(.*\) → ok: shipped/)
  })
})

describe('canonicalView across the millisecond boundary', () => {
  // The OTel JS SDK stamps starts with Date.now() and ends as start + a precise duration: two parallel
  // calls started 0.2 ms apart get the same millisecond in one capture and adjacent ones in the next.
  const capture = (weatherMs: number, orderMs: number, answerMs: number, answerOutput = 'done') =>
    new Trace([
      span('r', null, 0, 90_000, { name: 'invoke_agent support', kind: 'agent' }),
      span('w', 'r', weatherMs, 20_000, { name: 'execute_tool get_weather', kind: 'tool', toolName: 'get_weather' }),
      span('o', 'r', orderMs, 12_000, { name: 'execute_tool lookup_order', kind: 'tool', toolName: 'lookup_order' }),
      span('a', 'r', answerMs, 400, { name: 'chat', kind: 'llm', output: answerOutput }),
    ])
  const names = (t: Trace) => canonicalView(t).spans.map((s) => s.name)

  test('parallel calls starting in the same or adjacent milliseconds are ordered by content, in every capture', () => {
    const together = names(capture(5, 5, 40))
    expect(names(capture(6, 5, 40))).toEqual(together) // lookup_order's millisecond came first
    expect(names(capture(5, 6, 40))).toEqual(together)
    expect(together).toEqual(['invoke_agent support', 'execute_tool get_weather', 'execute_tool lookup_order', 'chat'])
  })

  test('a span started after its siblings ended keeps its place, even 1 ms "early" on the start clock', () => {
    // 'chat' (llm) sorts before 'execute_tool' (tool) by content; it started when the tools were done.
    expect(names(capture(5, 5, 40)).at(-1)).toBe('chat')
    // weather ends at 25.0 ms; the chat's start stamp (floored) reads 24 ms.
    expect(names(capture(5, 5, 24)).at(-1)).toBe('chat')
    // …and a changed answer does not move it (its neighbours' positions, hence their keys, stay).
    expect(names(capture(5, 5, 24, 'a different answer')).at(-1)).toBe('chat')
  })
})
