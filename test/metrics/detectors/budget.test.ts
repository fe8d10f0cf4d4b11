// Token / call / latency / cost budgets on a real TRAIL run (oracle computed from the raw file) and on SDK spans.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BudgetResultSchema, checkBudget } from '../../../src/metrics/detectors/budget'
import { detect } from '../../../src/metrics/detectors/index'
import { parseTrace } from '../../../src/trace/parse'
import { at, createRecorder, record, type SpanSpec } from '../../helpers/otel'
import { FIXTURE_DIR } from '../../helpers/trail'

interface RawSpan {
  span_id: string
  timestamp: string
  duration: string
  span_attributes: Record<string, string>
  child_spans: RawSpan[]
}

/** Start and end in ms (with µs fractions) from the raw TRAIL fields, without our reader. */
function rawTimes(s: RawSpan): { start: number; end: number } {
  const [, secs, micros] = /^(.*?)\.(\d{6})Z$/.exec(s.timestamp)!
  const start = Date.parse(`${secs}Z`) + Number(micros) / 1000
  const [, h, m, sec] = /^PT(?:(\d+)H)?(?:(\d+)M)?([\d.]+)S$/.exec(s.duration)!
  return { start, end: start + (Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(sec)) * 1000 }
}

/** The spans of a raw TRAIL file, with kind, tokens and times, in start order. */
function rawSpans(raw: { spans: RawSpan[] }) {
  const out: Array<{
    id: string
    kind: string
    start: number
    end: number
    prompt: number
    completion: number
    total: number
  }> = []
  const walk = (s: RawSpan) => {
    const a = s.span_attributes
    out.push({
      id: s.span_id,
      kind: a['openinference.span.kind'] ?? '',
      ...rawTimes(s),
      prompt: Number(a['llm.token_count.prompt']),
      completion: Number(a['llm.token_count.completion']),
      total: Number(a['llm.token_count.total']),
    })
    s.child_spans.forEach(walk)
  }
  raw.spans.forEach(walk)
  return out.sort((x, y) => x.start - y.start)
}

describe('checkBudget on a real TRAIL run (test/fixtures/trail/41bbc898, 21 spans)', () => {
  const file = join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json')
  const text = readFileSync(file, 'utf8')
  const trace = parseTrace(text, file)
  const spans = rawSpans(JSON.parse(text))
  const calls = spans.filter((s) => s.kind === 'LLM')
  const total = calls.reduce((n, c) => n + c.total, 0)
  const last = calls[calls.length - 1]

  it('counts tokens of LLM calls only (agent spans repeat run totals) and names the call that went over', () => {
    expect(calls.length).toBeGreaterThanOrEqual(4)
    expect(trace.spans.filter((s) => s.kind === 'agent').every((a) => (a.tokens?.total ?? 0) > 0)).toBe(true)
    const result = checkBudget(trace, { tokens: total - 1 })
    expect(BudgetResultSchema.parse(result)).toEqual(result)
    const [check] = result.checks
    expect(check).toMatchObject({
      budget: 'tokens',
      limit: total - 1,
      actual: total,
      exceeded: true,
      overAt: { spanId: last.id, kind: 'llm' },
    })
    expect(check.summary).toContain(`tokens ${total.toLocaleString('en-US')} tokens > limit`)
    expect(result.withinBudget).toBe(false)
    expect(result.findings).toEqual([
      expect.objectContaining({
        spanId: last.id,
        category: 'Resource Exhaustion',
        detector: 'budget',
        severity: 'high',
      }),
    ])
    // A limit the first two calls reach is reported at the third call, which crossed it.
    expect(checkBudget(trace, { tokens: calls[0].total + calls[1].total }).checks[0].overAt?.spanId).toBe(calls[2].id)
  })

  it('checks LLM calls, wall time and cost together', () => {
    const wall = Math.max(...spans.map((s) => s.end)) - spans[0].start
    const limitMs = wall - 5000
    const result = checkBudget(
      trace,
      { llmCalls: calls.length - 1, latencyMs: limitMs, costUsd: 0.001 },
      { prices: { 'o3-mini': { input: 1.1, output: 4.4 } } },
    )
    const byName = Object.fromEntries(result.checks.map((c) => [c.budget, c]))
    expect(byName.llmCalls).toMatchObject({ actual: calls.length, exceeded: true, overAt: { spanId: last.id } })
    expect(byName.latencyMs.actual).toBeCloseTo(wall, 1)
    // Over at the model or tool call in flight when the limit passed.
    const deadline = spans[0].start + limitMs
    const inFlight = spans
      .filter((s) => (s.kind === 'LLM' || s.kind === 'TOOL') && s.start <= deadline && s.end > deadline)
      .pop()!
    expect(byName.latencyMs).toMatchObject({ exceeded: true, overAt: { spanId: inFlight.id } })
    const cost = calls.reduce((n, c) => n + (c.prompt * 1.1 + c.completion * 4.4) / 1e6, 0)
    expect(byName.costUsd.actual).toBeCloseTo(cost, 10)
    expect(byName.costUsd.exceeded).toBe(cost > 0.001)
    expect(result.findings).toHaveLength(result.checks.filter((c) => c.exceeded).length)
    expect(result.findings.every((f) => f.category === 'Resource Exhaustion')).toBe(true)
  })

  it('within every limit: no findings and no overAt', () => {
    const roomy = checkBudget(trace, { tokens: total, llmCalls: calls.length, latencyMs: 3_600_000 })
    expect(roomy.withinBudget).toBe(true)
    expect(roomy.findings).toEqual([])
    expect(roomy.checks.every((c) => c.overAt === undefined && !c.exceeded)).toBe(true)
  })

  it('says plainly when calls have no price instead of pretending they were free', () => {
    const [check] = checkBudget(trace, { costUsd: 0.001 }).checks
    expect(check).toMatchObject({ actual: 0, exceeded: false })
    expect(check.note).toContain(
      `${calls.length} of ${calls.length} LLM calls have no recorded cost and no price (o3-mini)`,
    )
  })

  it('detect() adds budget findings only when a budget is given', () => {
    expect(detect(trace).some((f) => f.detector === 'budget')).toBe(false)
    expect(detect(trace, { budget: { llmCalls: 2 } }).filter((f) => f.detector === 'budget')).toHaveLength(1)
  })
})

/** A chat span with token counts; `children` nest further chat spans (a framework span around the provider call). */
const chat = (start: number, children: SpanSpec[] = []): SpanSpec => ({
  name: 'chat gpt-4o-mini',
  start: at(start),
  end: at(start + 400),
  ok: true,
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.usage.input_tokens': 1200,
    'gen_ai.usage.output_tokens': 80,
  },
  children,
})

function sdkTrace(children: SpanSpec[]) {
  const rec = createRecorder({ seed: 3 })
  record(rec.tracer, {
    name: 'invoke_agent support',
    start: at(0),
    end: at(5000),
    ok: true,
    attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    children,
  })
  return parseTrace(rec.otlpJson(), 'sdk-run.json')
}

describe('checkBudget on SDK spans', () => {
  it('counts a framework LLM span that wraps the provider call once', () => {
    const trace = sdkTrace([chat(10, [chat(20)]), chat(1000)])
    const llms = trace.spansByKind('llm')
    expect(llms).toHaveLength(3)
    expect(llms.every((s) => s.tokens?.total === 1280)).toBe(true)
    const [tokens, calls] = checkBudget(trace, { tokens: 10_000, llmCalls: 10 }).checks
    expect(tokens.actual).toBe(2 * 1280)
    expect(calls.actual).toBe(2)
  })

  it('rejects unknown budget keys with a message naming them', () => {
    const trace = sdkTrace([chat(10)])
    expect(() => checkBudget(trace, { tokenz: 5 } as never)).toThrow(/tokenz/)
  })
})

describe('LLM spans around LLM spans are counted once, never less than the trace shows', () => {
  const hostile = (name: string) =>
    parseTrace(readFileSync(join(import.meta.dirname, '../../fixtures/hostile-traces', name), 'utf8'), name)

  it('an LLM call inside a tool of another LLM call is a call of its own (both counted)', () => {
    const result = checkBudget(hostile('llm-tool-llm.json'), { tokens: 100_000, llmCalls: 1 })
    expect(result.withinBudget).toBe(false)
    expect(result.checks.find((c) => c.budget === 'llmCalls')?.actual).toBe(2)
    expect(result.checks.find((c) => c.budget === 'tokens')?.actual).toBeGreaterThan(500_000)
  })

  it('a wrapper that reports more tokens than what it wraps keeps its count', () => {
    const result = checkBudget(hostile('tokens-wrapper.json'), { tokens: 1000 })
    expect(result.withinBudget).toBe(false)
    expect(result.checks.find((c) => c.budget === 'tokens')?.actual).toBeGreaterThanOrEqual(900_000)
  })
})
