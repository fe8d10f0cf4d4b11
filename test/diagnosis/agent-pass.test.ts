import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { agentPrompts } from '../../src/diagnosis/agent-context'
import { AgentJudgementSchema } from '../../src/diagnosis/agent-judgement'
import { runAgentPass } from '../../src/diagnosis/agent-pass'
import { compactSteps } from '../../src/diagnosis/steps'
import { toolAbuseFacts } from '../../src/diagnosis/tool-abuse'
import { AGENT_METRICS } from '../../src/diagnosis/types'
import { SYSTEM } from '../../src/metrics/prompts/agent-diagnosis'
import { loadTrace } from '../../src/trace/load'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { FIXTURE_DIR } from '../helpers/trail'
import { fakeJudgeClient, handmadeTrace, maxPromptTokens, type SpanSpec } from './helpers'

/** An agent with a plan and `n` steps, each one LLM call and one distinct web_search call. */
function longRun(n: number, argChars = 150): SpanSpec[] {
  const specs: SpanSpec[] = [
    {
      id: 'agent',
      kind: 'agent',
      name: 'ToolCallingAgent.run',
      input: { task: 'Find the 2019 revenue of ACME.' },
      output: 'ACME 2019 revenue: $4.2M',
      attributes: { 'smolagents.tools_names': '["web_search","visit_page","final_answer"]' },
    },
    {
      id: 'plan',
      parent: 'agent',
      kind: 'llm',
      name: 'planner',
      output: [{ role: 'assistant', content: 'Plan:\n1. Search for ACME annual report\n2. Read the revenue line' }],
    },
  ]
  for (let i = 0; i < n; i++) {
    specs.push({ id: `s${i}`, parent: 'agent', kind: 'chain', name: `Step ${i + 1}` })
    specs.push({
      id: `l${i}`,
      parent: `s${i}`,
      kind: 'llm',
      name: 'llm',
      output: [{ role: 'assistant', content: '', toolCalls: [{ name: 'web_search', arguments: `{"query":"q${i}"}` }] }],
    })
    specs.push({
      id: `t${i}`,
      parent: `s${i}`,
      kind: 'tool',
      name: 'SearchTool',
      toolName: 'web_search',
      toolArgs: { query: `acme ${i} ${'x'.repeat(argChars)}` },
      output: `result ${i}`,
    })
  }
  return specs
}

describe('deterministic tool abuse', () => {
  const trace = handmadeTrace([
    { id: 'agent', kind: 'agent', name: 'run', input: { task: 't' } },
    {
      id: 'a',
      parent: 'agent',
      kind: 'tool',
      name: 'S',
      toolName: 'web_search',
      toolArgs: { query: 'ACME revenue' },
      status: 'error',
      statusMessage: 'HTTPError: 503',
    },
    {
      id: 'b',
      parent: 'agent',
      kind: 'tool',
      name: 'S',
      toolName: 'web_search',
      toolArgs: { query: '  acme   REVENUE ' },
      status: 'error',
      statusMessage: 'HTTPError: 503',
    },
    {
      id: 'c',
      parent: 'agent',
      kind: 'tool',
      name: 'S',
      toolName: 'web_search',
      toolArgs: { query: 'acme revenue' },
      output: 'ok',
    },
    {
      id: 'd',
      parent: 'agent',
      kind: 'tool',
      name: 'V',
      toolName: 'visit_page',
      toolArgs: { url: 'https://x' },
      output: 'page',
    },
    {
      id: 'e',
      parent: 'agent',
      kind: 'tool',
      name: 'V',
      toolName: 'visit_page',
      toolArgs: { url: 'https://x' },
      output: 'page',
    },
    {
      id: 'f',
      parent: 'agent',
      kind: 'tool',
      name: 'V',
      toolName: 'visit_page',
      toolArgs: { url: 'https://y' },
      output: 'page',
    },
  ])

  test('counts identical calls (canonical arguments) and failing calls retried unchanged', () => {
    const facts = toolAbuseFacts(compactSteps(trace))
    expect(facts).toMatchObject({ calls: 6, repeated: 3, unchangedRetries: 2, pass: false })
    expect(facts.score).toBeCloseTo(0.5)
    expect(facts.examples[0]).toMatch(/^call web_search\(.*\) ×3 \(2 after it failed\)$/)
  })

  test('without a judge the agent pass is the deterministic tool-abuse verdict only', async () => {
    const r = await runAgentPass(trace, compactSteps(trace), {
      metrics: [...AGENT_METRICS],
      budgetTokens: 16_000,
      threshold: 0.5,
    })
    expect(r.chunks).toBe(0)
    expect(r.verdicts).toHaveLength(1)
    expect(r.verdicts[0]).toMatchObject({
      metric: 'agent.tool_abuse',
      level: 'agent',
      scale: 'ratio',
      outcome: 'fail',
      category: 'Resource Abuse',
      spanId: 'agent',
    })
    expect(r.verdicts[0].reason).toContain(
      '3 of 6 calls repeated an identical earlier call (2 retried a failing call unchanged)',
    )
  })
})

describe('compact steps of a real TRAIL run', () => {
  test('plans, code actions, delegations, failing calls and the final answer', async () => {
    const trace = await loadTrace(`${FIXTURE_DIR}/41bbc898aa7de0f31d2382ff57700a76.json`)
    const steps = compactSteps(trace)
    expect(steps.map((s) => `${s.kind}${s.failed ? '!' : ''}:${s.agent}`)).toEqual([
      'plan:CodeAgent.run',
      'code:CodeAgent.run',
      'delegate:CodeAgent.run',
      'plan:search_agent',
      'call!:search_agent',
      'answer:search_agent',
      'code:CodeAgent.run',
      'answer:CodeAgent.run',
    ])
    expect(steps[4].text).toMatch(
      /^call inspect_file_as_text\(\{"file_path":"data\/gaia\/validation\/1f975693.*\) → error: FileConversionException/,
    )
    expect(steps.every((s) => trace.get(s.spanId))).toBe(true)
  })
})

describe('chunking long runs', () => {
  const trace = handmadeTrace(longRun(400))
  const steps = compactSteps(trace)

  test('a run too long for one call is split into parts, each within the budget, covering every step once', () => {
    const prompts = agentPrompts(trace, steps, toolAbuseFacts(steps), {
      system: SYSTEM,
      schema: AgentJudgementSchema,
      budgetTokens: 4000,
    })
    expect(prompts.length).toBeGreaterThan(3)
    for (const p of prompts) {
      expect(p.tokens).toBeLessThanOrEqual(4000)
      expect(p.text).toContain('<goal>\nFind the 2019 revenue of ACME.')
      expect(p.text).toContain('Plan:\n1. Search for ACME annual report')
      expect(p.text).toContain('used: web_search ×400')
      expect(p.text).toContain('ACME 2019 revenue: $4.2M')
    }
    const seen = prompts.flatMap((p) =>
      [...p.text.matchAll(/call web_search\(\{"query":"acme (\d+) /g)].map((m) => Number(m[1])),
    )
    expect(seen).toEqual(Array.from({ length: 400 }, (_, i) => i))
    expect(prompts[0].text).toContain(`part 1 of ${prompts.length} (steps 1–`)
  })

  test('a short run is one call', () => {
    const short = handmadeTrace(longRun(3))
    expect(
      agentPrompts(short, compactSteps(short), toolAbuseFacts(compactSteps(short)), {
        system: SYSTEM,
        schema: AgentJudgementSchema,
        budgetTokens: 4000,
      }),
    ).toHaveLength(1)
  })

  describe('against the fake judge', () => {
    let fake: FakeJudge
    beforeAll(async () => {
      fake = await startFakeJudge({
        rules: [
          {
            name: 'first-part',
            when: { regex: '<steps>\\npart 1 of' },
            respond: {
              verdict: 'pass',
              reason: 'part one',
              fields: { plan_efficiency: { score: 2, reason: 'drifts from the plan in part 1' } },
            },
          },
          {
            name: 'last-part',
            when: { regex: '<steps>\\npart (\\d+) of \\1 ' },
            respond: {
              verdict: 'pass',
              reason: 'last part',
              fields: {
                completeness: { score: 3, reason: 'answer lacks the source' },
                plan_efficiency: { score: 4, reason: 'fine at the end' },
              },
            },
          },
        ],
      })
    })
    afterAll(() => fake.close())
    beforeEach(() => fake.reset())

    test('parts are judged separately and merged: min for plan efficiency, last part for completeness', async () => {
      const r = await runAgentPass(trace, steps, {
        judge: fakeJudgeClient(fake),
        metrics: [...AGENT_METRICS],
        budgetTokens: 4000,
        threshold: 0.5,
      })
      expect(r.chunks).toBeGreaterThan(3)
      expect(fake.calls).toHaveLength(r.chunks)
      expect(maxPromptTokens(fake)).toBeLessThanOrEqual(4000)
      const by = Object.fromEntries(r.verdicts.map((v) => [v.metric, v]))
      expect(by['agent.plan_efficiency']).toMatchObject({
        raw: 2,
        outcome: 'fail',
        reason: `part 1/${r.chunks}: drifts from the plan in part 1`,
      })
      expect(by['agent.completeness']).toMatchObject({
        raw: 3,
        outcome: 'pass',
        reason: `part ${r.chunks}/${r.chunks}: answer lacks the source`,
      })
      expect(by['agent.tool_coverage']).toMatchObject({ raw: 5, outcome: 'pass' })
      expect(by['agent.tool_abuse'].reason).toContain('deterministic check: none of 400 calls repeated')
      expect(r.verdicts[0].judge).toMatchObject({ provider: 'openai-compatible', cached: false })
      expect(r.verdicts.slice(1).every((v) => v.judge === undefined)).toBe(true)
    })

    test('a deterministic tool-abuse failure caps the judge score at 2/5', async () => {
      const repeated = handmadeTrace([
        ...longRun(0),
        ...['a', 'b', 'c'].map((id) => ({
          id,
          parent: 'agent',
          kind: 'tool' as const,
          name: 'S',
          toolName: 'web_search',
          toolArgs: { query: 'same' },
          status: 'error' as const,
          statusMessage: 'HTTPError: 503',
        })),
      ])
      const r = await runAgentPass(repeated, compactSteps(repeated), {
        judge: fakeJudgeClient(fake),
        metrics: ['agent.tool_abuse'],
        budgetTokens: 16_000,
        threshold: 0.5,
      })
      expect(r.verdicts).toHaveLength(1)
      expect(r.verdicts[0]).toMatchObject({
        metric: 'agent.tool_abuse',
        raw: 2,
        outcome: 'fail',
        category: 'Resource Abuse',
      })
      expect(r.verdicts[0].reason).toContain('2 retried a failing call unchanged')
    })
  })
})
