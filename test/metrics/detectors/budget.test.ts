// Token / call / latency / cost budgets on a real TRAIL run (oracle computed from the raw file) and SDK spans.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BudgetResultSchema, checkBudget } from '../../../src/metrics/detectors/budget'
import { detect } from '../../../src/metrics/detectors/index'
import { parseTrace } from '../../../src/trace/parse'
import { recordRun } from './otel-run'
import { HAVE_TRAIL, TRAIL_DIR } from './trail'

interface RawSpan {
  span_id: string
  timestamp: string
  duration: string
  span_attributes: Record<string, string>
  child_spans: RawSpan[]
}

/** The LLM calls of a raw TRAIL file in start order, with their token counts, read without our reader. */
function rawLlmCalls(raw: { spans: RawSpan[] }) {
  const out: Array<{ id: string; start: string; prompt: number; completion: number; total: number }> = []
  const walk = (s: RawSpan) => {
    const a = s.span_attributes
    if (a['openinference.span.kind'] === 'LLM') out.push({ id: s.span_id, start: s.timestamp, prompt: Number(a['llm.token_count.prompt']), completion: Number(a['llm.token_count.completion']), total: Number(a['llm.token_count.total']) })
    s.child_spans.forEach(walk)
  }
  raw.spans.forEach(walk)
  return out.sort((x, y) => x.start.localeCompare(y.start))
}

describe.skipIf(!HAVE_TRAIL)('checkBudget on a real TRAIL run (GAIA 0035f455, 11 spans, 4 LLM calls)', () => {
  const dir = join(TRAIL_DIR, 'GAIA')
  const file = join(dir, readdirSync(dir).find((f) => f.startsWith('0035f455'))!)
  const text = readFileSync(file, 'utf8')
  const trace = parseTrace(text, file)
  const calls = rawLlmCalls(JSON.parse(text))
  const total = calls.reduce((n, c) => n + c.total, 0)

  it('counts tokens of LLM calls only (the agent span repeats a run total) and names the call that went over', () => {
    expect(calls).toHaveLength(4)
    const agentTotal = trace.spans.find((s) => s.kind === 'agent')!.tokens!.total
    expect(agentTotal).toBeGreaterThan(0)
    const result = checkBudget(trace, { tokens: total - 1 })
    expect(BudgetResultSchema.parse(result)).toEqual(result)
    const [check] = result.checks
    expect(check).toMatchObject({ budget: 'tokens', limit: total - 1, actual: total, exceeded: true, overAt: { spanId: calls[3].id, kind: 'llm' } })
    expect(check.summary).toContain(`tokens ${total.toLocaleString('en-US')} tokens > limit`)
    expect(result.withinBudget).toBe(false)
    expect(result.findings).toEqual([expect.objectContaining({ spanId: calls[3].id, category: 'Resource Exhaustion', detector: 'budget', severity: 'high' })])
    // A limit the first calls already pass is reported at the call that crossed it.
    const crossing = calls[0].total + calls[1].total
    expect(checkBudget(trace, { tokens: crossing }).checks[0].overAt?.spanId).toBe(calls[2].id)
  })

  it('checks LLM calls, wall time and cost together; within limits means no findings', () => {
    const result = checkBudget(trace, { llmCalls: 3, latencyMs: 100_000, costUsd: 0.01 }, { prices: { 'o3-mini': { input: 1.1, output: 4.4 } } })
    const byName = Object.fromEntries(result.checks.map((c) => [c.budget, c]))
    expect(byName.llmCalls).toMatchObject({ actual: 4, exceeded: true, overAt: { spanId: calls[3].id } })
    // main runs PT1M48.75533S; the last LLM call (started at 90.4 s, 18.4 s long) is in flight at 100 s.
    expect(byName.latencyMs.actual).toBeCloseTo(108_755.33, 1)
    expect(byName.latencyMs).toMatchObject({ exceeded: true, overAt: { spanId: calls[3].id } })
    const cost = calls.reduce((n, c) => n + (c.prompt * 1.1 + c.completion * 4.4) / 1e6, 0)
    expect(byName.costUsd.actual).toBeCloseTo(cost, 10)
    expect(byName.costUsd.exceeded).toBe(cost > 0.01)
    expect(result.findings.map((f) => f.category)).toEqual(result.checks.filter((c) => c.exceeded).map(() => 'Resource Exhaustion'))

    const roomy = checkBudget(trace, { tokens: total, llmCalls: 4, latencyMs: 200_000 })
    expect(roomy.withinBudget).toBe(true)
    expect(roomy.findings).toEqual([])
    expect(roomy.checks.every((c) => c.overAt === undefined)).toBe(true)
  })

  it('says plainly when calls have no price instead of pretending they were free', () => {
    const [check] = checkBudget(trace, { costUsd: 0.001 }).checks
    expect(check).toMatchObject({ actual: 0, exceeded: false })
    expect(check.note).toMatch(/4 of 4 LLM calls have no recorded cost and no price \(o3-mini\)/)
  })

  it('detect() adds budget findings only when a budget is given', () => {
    expect(detect(trace).some((f) => f.detector === 'budget')).toBe(false)
    expect(detect(trace, { budget: { llmCalls: 2 } }).filter((f) => f.detector === 'budget')).toHaveLength(1)
  })
})

describe('checkBudget on SDK spans', () => {
  it('counts a framework LLM span that wraps the provider call once, and reads recorded costs', () => {
    const trace = recordRun((run) => {
      const outer = run.chat(run.root, 'search', { q: 'a' })
      run.chat(outer, 'search', { q: 'a' })
      run.chat(run.root, 'search', { q: 'b' })
    })
    const llms = trace.spansByKind('llm')
    expect(llms).toHaveLength(3)
    expect(llms.every((s) => s.tokens?.total === 1280)).toBe(true)
    const [tokens, calls] = checkBudget(trace, { tokens: 10_000, llmCalls: 10 }).checks
    expect(tokens.actual).toBe(2 * 1280)
    expect(calls.actual).toBe(2)
  })

  it('rejects unknown budget keys with a message naming them', () => {
    const trace = recordRun(() => {})
    expect(() => checkBudget(trace, { tokenz: 5 } as never)).toThrow(/tokenz/)
  })
})
