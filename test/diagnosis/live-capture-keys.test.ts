// Two captures of the same agent run with the real OTel SDK must give the same judge prompts, hence
// the same cassette keys: new random span ids, spans that start in the same millisecond, exporter
// order changed by which parallel tool call finishes first. The second run replays with 0 calls.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, trace as otel, type Span as OtelSpan, type Tracer } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterAll, afterEach, beforeAll, beforeEach, expect, test, vi } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { canonicalView } from '../../src/diagnosis/canonical'
import { diagnose } from '../../src/diagnosis/diagnose'
import { fromReadableSpans } from '../../src/trace/readers/readable-spans'
import { Trace } from '../../src/trace/trace'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { fakeJudgeClient } from './helpers'

let fake: FakeJudge
let dir: string
beforeAll(async () => {
  fake = await startFakeJudge({})
})
afterAll(() => fake.close())
beforeEach(async () => {
  fake.reset()
  dir = await mkdtemp(join(tmpdir(), 'av-live-keys-'))
})
afterEach(async () => {
  vi.useRealTimers()
  await rm(dir, { recursive: true, force: true })
})

const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * A support agent as a user instruments it: a chat that asks for two tools, both run in parallel,
 * and a closing chat. `firstDone` picks which tool call finishes (and is exported) first. Each call
 * takes a few milliseconds, as real tool calls do: the start clock's whole milliseconds cannot tell
 * apart parallel calls shorter than that from sequential ones (docs: canonical.ts).
 */
async function supportAgent(tracer: Tracer, firstDone: 'order' | 'weather'): Promise<void> {
  const child = async (
    parent: OtelSpan,
    name: string,
    attributes: Record<string, string>,
    work: () => Promise<void>,
  ) => {
    const span = tracer.startSpan(name, { attributes }, otel.setSpan(context.active(), parent))
    await work()
    span.end()
  }
  const root = tracer.startSpan('invoke_agent support', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
  })
  const user = { role: 'user', parts: [{ type: 'text', content: 'Where is order A-1042, and will rain delay it?' }] }
  const asks = {
    role: 'assistant',
    parts: [
      { type: 'tool_call', id: 'c1', name: 'lookup_order', arguments: { order_id: 'A-1042' } },
      { type: 'tool_call', id: 'c2', name: 'get_weather', arguments: { city: 'Lyon' } },
    ],
  }
  await child(
    root,
    'chat gpt-4o-mini',
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.input.messages': JSON.stringify([user]),
      'gen_ai.output.messages': JSON.stringify([asks]),
    },
    async () => {},
  )
  const tool = (name: string, args: object, result: string, delay: number) =>
    child(
      root,
      `execute_tool ${name}`,
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
        'gen_ai.tool.call.arguments': JSON.stringify(args),
        'gen_ai.tool.call.result': result,
      },
      () => tick(delay),
    )
  await Promise.all([
    tool('lookup_order', { order_id: 'A-1042' }, '{"status":"shipped","city":"Lyon"}', firstDone === 'order' ? 5 : 20),
    tool('get_weather', { city: 'Lyon' }, '{"rain_mm":0}', firstDone === 'weather' ? 5 : 20),
  ])
  await child(
    root,
    'chat gpt-4o-mini',
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.input.messages': JSON.stringify([user, asks]),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: 'A-1042 has shipped to Lyon; no rain is expected.' }] },
      ]),
    },
    async () => {},
  )
  root.end()
}

/** One capture through a fresh provider: random ids, as in a user's test. */
async function capture(firstDone: 'order' | 'weather'): Promise<Trace> {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  await supportAgent(provider.getTracer('support-agent'), firstDone)
  const spans = fromReadableSpans(exporter.getFinishedSpans())
  const trace = new Trace(spans)
  exported.set(
    trace,
    spans.filter((s) => s.kind === 'tool').map((s) => s.toolName),
  )
  return trace
}
/** Tool names in the order the exporter gave the spans (end order). */
const exported = new WeakMap<Trace, Array<string | undefined>>()

async function judgeRun(trace: Trace, mode: 'auto' | 'replay') {
  const judge = withCassette(fakeJudgeClient(fake), { file: join(dir, 'run.json'), mode })
  const diagnosis = await diagnose(trace, { judge })
  await judge.flush()
  return { diagnosis, keys: [...judge.usedKeys].sort(), stats: { ...judge.stats } }
}

test.each([
  // Date frozen: every span starts in the same millisecond, so start time decides nothing.
  ['every span starting in the same millisecond', true],
  ['the real clock', false],
])('two captures with %s give the same keys, and the second replays with 0 judge calls', async (_label, frozen) => {
  if (frozen) vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-18T09:30:00Z') })
  const first = await capture('order')
  const second = await capture('weather')
  vi.useRealTimers()

  // What the test is about: the captures really differ in ids and in exporter (end) order.
  const ids = (t: Trace) => new Set(t.spans.map((s) => s.id))
  expect([...ids(first)].some((id) => ids(second).has(id))).toBe(false)
  const toolOrder = (t: Trace) => exported.get(t)
  if (frozen) {
    expect(new Set(first.spans.map((s) => s.startNs)).size).toBe(1)
    expect(toolOrder(first)).not.toEqual(toolOrder(second))
  }
  // … while the canonical view is the same.
  const view = (t: Trace) =>
    canonicalView(t).spans.map((s) => `${canonicalView(t).position(s.id)} ${s.name} ${s.toolName ?? ''}`)
  expect(view(second)).toEqual(view(first))

  const recorded = await judgeRun(first, 'auto')
  expect(recorded.stats.recorded).toBeGreaterThan(0)
  expect(fake.calls.length).toBe(recorded.stats.recorded)
  const prompts = fake.calls.map((c) => c.prompt)
  for (const span of first.spans) expect(prompts.join('\n')).not.toContain(span.id)

  fake.reset()
  const replayed = await judgeRun(second, 'replay')
  expect(fake.calls.length).toBe(0)
  expect(replayed.keys).toEqual(recorded.keys)
  expect(replayed.stats).toEqual({ replayed: recorded.stats.recorded, recorded: 0 })
  // Verdicts are mapped back to the second capture's own span ids.
  const judged = replayed.diagnosis.spans
    .flatMap((s) => s.verdicts)
    .filter((v) => v.level === 'span')
    .map((v) => v.spanId)
  expect(judged.length).toBeGreaterThan(0)
  for (const id of judged) expect(ids(second).has(id!)).toBe(true)
})
