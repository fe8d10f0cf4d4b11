// A fast agent (synchronous planner, mocked tools, steps well under a millisecond) traced live with the
// real OTel SDK must give the same cassette keys on every run. The SDK stamps span starts with
// Date.now(), so which spans share a millisecond changes from run to run; the order must not.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, trace as otel, type Span as OtelSpan, type Tracer } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest'
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
  dir = await mkdtemp(join(tmpdir(), 'av-fast-agent-'))
})
afterAll(async () => {
  await fake.close()
  await rm(dir, { recursive: true, force: true })
})
afterEach(() => vi.restoreAllMocks())

const chat = (input: string, output: string) => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': 'gpt-4o-mini',
  'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: input }] }]),
  'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: output }] }]),
})
const tool = (name: string, args: object, result: string) => ({
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': name,
  'gen_ai.tool.call.arguments': JSON.stringify(args),
  'gen_ai.tool.call.result': result,
})

/**
 * The agent as a user tests it: a synchronous planner, a mocked chat, three mocked tools in parallel
 * (the one started first finishes last, so exporter order is not start order), one more tool and a
 * closing chat. Every step takes microseconds; tools come before chats in content order, so an order by
 * content where the steps ran one after the other shows as a changed key.
 */
async function fastAgent(tracer: Tracer): Promise<void> {
  const root = tracer.startSpan('invoke_agent support', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
  })
  const under = otel.setSpan(context.active(), root)
  const step = async (name: string, attributes: Record<string, string>, awaits = 0) => {
    const span: OtelSpan = tracer.startSpan(name, { attributes }, under)
    for (let i = 0; i < awaits; i++) await Promise.resolve()
    span.end()
  }
  tracer.startSpan('plan', { attributes: { 'agent.plan': 'look up, then answer' } }, under).end()
  await step('chat gpt-4o-mini', chat('Where is A-1042?', 'I will look it up.'))
  await Promise.all([
    step('execute_tool lookup_order', tool('lookup_order', { id: 'A-1042' }, '{"status":"shipped"}'), 3),
    step('execute_tool get_weather', tool('get_weather', { city: 'Lyon' }, '{"rain_mm":0}'), 1),
    step('execute_tool get_eta', tool('get_eta', { id: 'A-1042' }, '{"days":2}'), 2),
  ])
  await step('execute_tool notify', tool('notify', { id: 'A-1042' }, '"sent"'))
  await step('chat gpt-4o-mini', chat('Summarize.', 'A-1042 has shipped; it arrives in 2 days.'))
  root.end()
}

async function capture(): Promise<Trace> {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  await fastAgent(provider.getTracer('support-agent'))
  return new Trace(fromReadableSpans(exporter.getFinishedSpans()))
}

const positions = (t: Trace) =>
  canonicalView(t)
    .spans.map((s) => `${canonicalView(t).position(s.id)} ${s.name}`)
    .join('\n')

async function keysOf(trace: Trace, mode: 'auto' | 'replay') {
  const judge = withCassette(fakeJudgeClient(fake), { file: join(dir, 'fast.json'), mode })
  await diagnose(trace, { judge })
  await judge.flush()
  return [...judge.usedKeys].sort().join('\n')
}

test('a fast agent traced live 20 times, and 20 times with the millisecond boundary at every step, gives one set of keys and replays with 0 judge calls', async () => {
  const first = await capture()
  const recorded = await keysOf(first, 'auto')
  expect(fake.calls.length).toBeGreaterThan(0)
  fake.reset()

  const views = new Set<string>()
  const keys = new Set<string>()
  for (let run = 0; run < 40; run++) {
    if (run >= 20) {
      // Where the millisecond boundary falls, stepped through the run: the (n+run)-th Date.now() call
      // moves to the next millisecond, so each span pair is split by it in some run and not in others.
      const base = Date.now()
      let calls = 0
      vi.spyOn(Date, 'now').mockImplementation(() => base + Math.floor((calls++ + run) / 3))
    }
    const trace = await capture()
    vi.restoreAllMocks()
    views.add(positions(trace))
    keys.add(await keysOf(trace, 'replay'))
  }
  expect([...views]).toEqual([positions(first)])
  expect([...keys]).toEqual([recorded])
  expect(fake.calls.length).toBe(0)
  // The steps ran in this order: time order for sequential steps, content order for the parallel tools.
  expect(positions(first).split('\n')).toEqual([
    '1 invoke_agent support',
    '1.1 plan',
    '1.2 chat gpt-4o-mini',
    '1.3 execute_tool get_eta',
    '1.4 execute_tool get_weather',
    '1.5 execute_tool lookup_order',
    '1.6 execute_tool notify',
    '1.7 chat gpt-4o-mini',
  ])
})
