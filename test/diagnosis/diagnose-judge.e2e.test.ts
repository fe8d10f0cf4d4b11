// Judge mode end to end: diagnose() on real TRAIL traces through the real OpenAI client and the fake
// judge server. The fake judge's replies are scripted, so nothing here measures judge accuracy.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { diagnose } from '../../src/diagnosis/diagnose'
import { parseTrace } from '../../src/trace/parse'
import { agentSpan, at, createRecorder, record } from '../helpers/otel'
import { formatFailingLeaf } from '../../src/diagnosis/format'
import { SPAN_CATEGORY_METRIC, SPAN_METRICS, type PropagationPolicy } from '../../src/diagnosis/types'
import { JudgeAbortError, JudgeConfigError } from '../../src/judges/errors'
import { openaiJudge } from '../../src/judges/openai'
import type { Judge } from '../../src/judges/types'
import { detect } from '../../src/metrics/detectors/index'
import { loadTrace, loadTraceFile } from '../../src/trace/load'
import type { Trace } from '../../src/trace/trace'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { FIXTURE_DIR, HAS_TRAIL, TRAIL_DIR, traceFiles } from '../helpers/trail'
import { fakeJudgeClient, maxPromptTokens } from './helpers'

// GAIA run: main › answer_single_question › CodeAgent.run › {planning LLM ×2, Step 1 › {LLM 9dfa…, FinalAnswerTool}}, closing LLM.
const GAIA = `${FIXTURE_DIR}/0ebe673d64647ec44c370638b82d3c78.json`
const TARGET = '9dfa48b84b860b85'
// Only that span's own prompt has this text at the start of <span_output> (later spans see it as input).
const TARGET_OUTPUT = '<span_output>\\n\\[assistant\\]\\nThought: First, I will reverse the provided text'

let fake: FakeJudge
beforeAll(async () => {
  fake = await startFakeJudge({})
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.reset()
  fake.setRules([])
  fake.setFaults([])
})

describe('every prompt stays within the per-call budget', () => {
  test.each([16_000, 6_000])(
    'repo TRAIL fixtures at %i tokens: the max over every call the fake judge counted',
    async (budget) => {
      let calls = 0
      for (const file of traceFiles(FIXTURE_DIR)) {
        const trace = await loadTrace(file)
        const d = await diagnose(trace, {
          judge: fakeJudgeClient(fake),
          budgetTokens: budget,
          judgeDetectorSpans: true,
        })
        calls += d.stats.judgeCalls
        expect(d.stats.maxPromptTokens).toBeLessThanOrEqual(budget)
        expect(d.stats.spansJudged).toBe(trace.find({ kind: ['llm', 'tool'] }).length)
        expect(d.stats.judgeCalls).toBe(d.stats.spansJudged + d.agent.chunks)
      }
      expect(fake.calls.length).toBe(calls)
      expect(maxPromptTokens(fake)).toBeGreaterThan(budget / 2)
      expect(maxPromptTokens(fake)).toBeLessThanOrEqual(budget)
    },
  )

  test.skipIf(!HAS_TRAIL)('shared TRAIL traces, the largest SWE trace included', async () => {
    const files = [
      join(TRAIL_DIR, 'SWE_Bench/567b83e63b59748d46419aa05ee50256.json'),
      ...traceFiles(join(TRAIL_DIR, 'GAIA')).slice(0, 3),
    ]
    for (const file of files)
      await diagnose(await loadTrace(file), { judge: fakeJudgeClient(fake), budgetTokens: 8_000 })
    expect(fake.calls.length).toBeGreaterThan(10)
    expect(maxPromptTokens(fake)).toBeLessThanOrEqual(8_000)
  })
})

describe('localization', () => {
  test('verdicts sit on real span ids; one verdict per aspect plus the category on every judged span', async () => {
    const trace = await loadTrace(`${FIXTURE_DIR}/41bbc898aa7de0f31d2382ff57700a76.json`)
    const d = await diagnose(trace, { judge: fakeJudgeClient(fake) })
    const explained = new Set(detect(trace).map((f) => f.spanId))
    const judged = trace.find({ kind: ['llm', 'tool'] }).filter((s) => !explained.has(s.id))
    expect(d.stats).toMatchObject({
      spansSelected: judged.length + explained.size,
      spansJudged: judged.length,
      spansSkipped: explained.size,
    })
    for (const span of judged) {
      const metrics = d.spans.find((s) => s.spanId === span.id)!.verdicts.map((v) => v.metric)
      expect(metrics).toEqual([...SPAN_METRICS, SPAN_CATEGORY_METRIC])
    }
    for (const s of d.spans) for (const v of s.verdicts) expect(trace.get(v.spanId!)).toBeDefined()
    expect(d.spans.map((s) => s.spanId)).toEqual(trace.spans.map((s) => s.id))
    expect(d.failingLeaves.every((l) => trace.get(l.spanId) && l.path.at(-1) === trace.get(l.spanId)!.name)).toBe(true)
    expect(d.agent.verdicts.map((v) => [v.metric, v.level, v.spanId])).toEqual([
      ['agent.plan_efficiency', 'agent', '5e4309f04577d219'],
      ['agent.tool_coverage', 'agent', '5e4309f04577d219'],
      ['agent.tool_abuse', 'agent', '5e4309f04577d219'],
      ['agent.completeness', 'agent', '5e4309f04577d219'],
    ])
  })

  test('a span the judge fails is named with its path, category, aspect score, reason and evidence', async () => {
    fake.setRules([
      {
        when: { regex: TARGET_OUTPUT },
        respond: {
          verdict: 'fail',
          reason: 'it answers without reading the reversed sentence',
          fields: {
            error_category: 'Language-only',
            evidence: 'First, I will reverse the provided text',
            reasoning_integrity: { score: 2, reason: 'the claim is not checked' },
          },
        },
      },
    ])
    const d = await diagnose(await loadTrace(GAIA), { judge: fakeJudgeClient(fake), detectors: false })
    expect(d.failingLeaves).toHaveLength(1)
    const leaf = d.failingLeaves[0]
    expect(leaf).toMatchObject({
      spanId: TARGET,
      kind: 'llm',
      category: 'Language-only',
      evidence: 'First, I will reverse the provided text',
      position: 9,
      of: 11,
    })
    expect(formatFailingLeaf(leaf)).toMatch(
      /^span 9\/11 llm:LiteLLMModel\.__call__ \(id 9dfa48b84b860b85, path main › answer_single_question › CodeAgent\.run › Step 1 › LiteLLMModel\.__call__\) — Language-only \(instruction following 1\/5\): it answers without reading the reversed sentence$/,
    )
    expect(d.categories).toEqual({ 'Language-only': 1 })
  })
})

describe('propagation policies on a real trace give the documented trace verdicts', () => {
  // One failing leaf (Step 1's LLM); its siblings and the other judged spans pass. Detectors off, so
  // only the scripted judge decides. Shares: Step 1 has 1 of 2 judged children failing, CodeAgent.run
  // 1 of 3, answer_single_question 1 of 2, main 1 of 1.
  const cases: Array<[string, PropagationPolicy | undefined, 'pass' | 'fail']> = [
    ['existential (default)', undefined, 'fail'],
    ['threshold 0.3: CodeAgent.run (1/3) and everything above fail', { type: 'threshold', threshold: 0.3 }, 'fail'],
    ['threshold 0.4: Step 1 (1/2) fails, CodeAgent.run (1/3) does not', { type: 'threshold', threshold: 0.4 }, 'pass'],
    ['category listing the failure', { type: 'category', categories: ['Formatting Errors'] }, 'fail'],
    ['category not listing it', { type: 'category', categories: ['Rate Limiting', 'Service Errors'] }, 'pass'],
  ]
  let trace: Trace
  beforeAll(async () => {
    trace = await loadTrace(GAIA)
  })

  test.each(cases)('%s → %s', async (_, policy, outcome) => {
    fake.setRules([
      {
        when: { regex: TARGET_OUTPUT },
        respond: {
          verdict: 'fail',
          reason: 'no code block',
          fields: { error_category: 'Formatting Errors', evidence: '' },
        },
      },
    ])
    const d = await diagnose(trace, { judge: fakeJudgeClient(fake), detectors: false, policy, agent: false })
    expect(d.verdict.outcome).toBe(outcome)
    expect(d.failingLeaves.map((l) => l.spanId)).toEqual([TARGET])
    expect(d.failingLeaves[0].propagates).toBe(outcome === 'fail')
    const state = (name: string) => d.spans.find((s) => s.name === name)!.state
    expect(state('Step 1')).toBe(typeof policy === 'object' && policy.type === 'threshold' ? 'fail' : outcome)
    expect(d.verdict.reason).toContain(`(id ${TARGET})`)
  })
})

describe('judge failures', () => {
  test('a fault on one span makes that span unjudgeable and keeps every other verdict', async () => {
    fake.setFaults([{ type: 'server-error', status: 503, when: { regex: TARGET_OUTPUT } }])
    const trace = await loadTrace(GAIA)
    // Three attempts and a budget no loaded machine spends: the retry count must not depend on timing.
    const judge = openaiJudge({
      model: 'fake-judge',
      baseURL: fake.baseURL,
      maxAttempts: 3,
      maxWaitMs: 60_000,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    })
    const d = await diagnose(trace, { judge, detectors: false })
    const target = d.spans.find((s) => s.spanId === TARGET)!
    expect(target.own).toBe('unjudgeable')
    expect(target.verdicts.every((v) => v.outcome === 'unjudgeable' && v.reason.startsWith('unjudgeable: '))).toBe(true)
    const others = d.spans.filter((s) => (s.kind === 'llm' || s.kind === 'tool') && s.spanId !== TARGET)
    expect(others).toHaveLength(4)
    for (const s of others) expect(s.verdicts.map((v) => v.outcome)).toEqual(['pass', 'pass', 'pass', 'pass'])
    expect(d.stats.unjudgeable).toBe(1)
    expect(d.verdict.outcome).toBe('unjudgeable')
    expect(d.verdict.reason).toContain(`id ${TARGET}`)
    expect(fake.calls.filter((c) => c.fault === 'server-error').length).toBe(3) // it was retried first
  })

  test('aborting rejects the diagnosis instead of returning half-judged spans', async () => {
    // Its own fake judge: requests written just before the abort may reach a server after the rejection.
    const own = await startFakeJudge({ latencyMs: 200 })
    try {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 20)
      await expect(
        diagnose(await loadTrace(GAIA), { judge: fakeJudgeClient(own), signal: controller.signal }),
      ).rejects.toBeInstanceOf(JudgeAbortError)
    } finally {
      await own.close()
    }
  })
})

describe('no judge call after the diagnosis rejects', () => {
  const waitFor = async (ok: () => boolean) => {
    while (!ok()) await new Promise((r) => setTimeout(r, 5))
  }
  // A fake judge of its own, and a client that notes when each request is started: the server reads
  // a request some time after the client wrote it, so "started after the rejection" is counted where
  // it happens, and the server is checked to see no more than was started before.
  const ownJudge = async (latencyMs: number) => {
    const server = await startFakeJudge({ latencyMs })
    const started: number[] = []
    const client = new OpenAI({
      apiKey: 'test',
      baseURL: server.baseURL,
      maxRetries: 0,
      fetch: async (input, init) => {
        started.push(performance.now())
        return fetch(input, init)
      },
    })
    const judge = openaiJudge({
      model: 'fake-judge',
      baseURL: server.baseURL,
      client,
      concurrency: 1,
      maxWaitMs: 300,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    })
    return { server, judge, started }
  }
  const afterRejection = async (run: Promise<unknown>, own: Awaited<ReturnType<typeof ownJudge>>) => {
    await run.catch(() => {})
    const rejectedAt = performance.now()
    const startedBefore = own.started.length
    await new Promise((r) => setTimeout(r, 1000))
    return {
      startedAfter: own.started.filter((t) => t > rejectedAt).length,
      startedBefore,
      serverSaw: own.server.stats.requests,
    }
  }

  test('a configuration error on one span stops the spans still queued or in flight: 0 requests in the second after', async () => {
    const own = await ownJudge(100)
    try {
      // One call at a time, so the other spans wait in the limiter; the third span's call fails as a
      // misconfigured judge would, once the fake judge has a request in hand.
      let calls = 0
      const judge: Judge = {
        id: own.judge.id,
        provider: own.judge.provider,
        model: own.judge.model,
        async evaluate(request, signal) {
          if (++calls !== 3) return own.judge.evaluate(request, signal)
          await waitFor(() => own.server.inFlight >= 1)
          throw new JudgeConfigError('judge misconfigured (injected by the test)')
        },
      }
      const run = diagnose(await loadTrace(GAIA), { judge, detectors: false })
      await expect(run).rejects.toBeInstanceOf(JudgeConfigError)
      const seen = await afterRejection(run, own)
      expect(seen.startedAfter).toBe(0)
      expect(seen.serverSaw).toBeLessThanOrEqual(seen.startedBefore)
      expect(seen.startedBefore).toBeLessThanOrEqual(2) // the call in flight when the error came, at most one more
    } finally {
      await own.server.close()
    }
  })

  test('an abort while calls are queued and in flight: 0 requests in the second after the rejection', async () => {
    const own = await ownJudge(300)
    try {
      const controller = new AbortController()
      const run = diagnose(await loadTrace(GAIA), { judge: own.judge, signal: controller.signal, detectors: false })
      await waitFor(() => own.server.inFlight >= 1)
      controller.abort()
      await expect(run).rejects.toBeInstanceOf(JudgeAbortError)
      const seen = await afterRejection(run, own)
      expect(seen).toEqual({ startedAfter: 0, startedBefore: 1, serverSaw: 1 })
    } finally {
      await own.server.close()
    }
  })
})

describe('options', () => {
  test('select picks the leaves judged; detector-explained spans are skipped unless asked', async () => {
    // Its own fake judge: the call count below must not depend on what earlier tests left in flight.
    const own = await startFakeJudge({})
    try {
      const trace = await loadTrace(`${FIXTURE_DIR}/41bbc898aa7de0f31d2382ff57700a76.json`)
      const tools = await diagnose(trace, { judge: fakeJudgeClient(own), select: { kind: 'tool' }, agent: false })
      const judgedTools = tools.spans
        .filter((s) => s.verdicts.some((v) => v.metric === SPAN_CATEGORY_METRIC))
        .map((s) => s.kind)
      expect(new Set(judgedTools)).toEqual(new Set(['tool']))
      expect(own.calls).toHaveLength(tools.stats.spansJudged)

      const all = await diagnose(trace, { judge: fakeJudgeClient(own), judgeDetectorSpans: true, agent: false })
      expect(all.stats.spansSkipped).toBe(0)
      expect(all.stats.spansJudged).toBe(trace.find({ kind: ['llm', 'tool'] }).length)
    } finally {
      await own.close()
    }
  })

  test('a span with only an unrecognized error is still judged: the fallback category is no explanation', async () => {
    const rec = createRecorder({ seed: 3 })
    record(
      rec.tracer,
      agentSpan(
        [
          {
            name: 'execute_tool inspect',
            start: at(100),
            end: at(400),
            attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'inspect' },
            error: { type: 'UnboundLocalError', message: "cannot access local variable 'res'", time: at(350) },
          },
        ],
        2_000,
      ),
    )
    const trace = parseTrace(rec.otlpJson(), 'sdk-run.json')
    const toolSpan = trace.spansByKind('tool')[0]
    const d = await diagnose(trace, { judge: fakeJudgeClient(fake), select: { kind: 'tool' }, agent: false })
    expect(d.stats.spansJudged).toBe(1)
    const metrics = d.spans.find((s) => s.spanId === toolSpan.id)!.verdicts.map((v) => v.metric)
    expect(metrics).toContain('detector:unrecognized-error')
    expect(metrics).toContain(SPAN_CATEGORY_METRIC)
  })

  test('invalid options fail with what was wrong', async () => {
    const trace = await loadTrace(GAIA)
    await expect(diagnose(trace, { budgetTokens: 100 })).rejects.toThrow(/invalid option budgetTokens/)
    await expect(diagnose(trace, { policy: { type: 'threshold', threshold: 1.5 } })).rejects.toThrow(
      /invalid option policy/,
    )
  })
})

describe('OTel GenAI traces (no smolagents task attribute)', () => {
  test('the task comes from the first user message and the final answer from the last LLM output', async () => {
    const [trace] = await loadTraceFile(join(FIXTURE_DIR, '../otlp/genai-agent-run.json'))
    const d = await diagnose(trace, { judge: fakeJudgeClient(fake) })
    expect(d.stats.spansJudged).toBe(3)
    const spanPrompts = fake.calls.filter((c) => c.schemaName === 'span_diagnosis')
    expect(spanPrompts).toHaveLength(3)
    for (const c of spanPrompts) expect(c.prompt).toContain('<task>\nWhere is my order A-1042?\n</task>')
    const agentPrompt = fake.calls.find((c) => c.schemaName === 'agent_diagnosis')!.prompt
    expect(agentPrompt).toContain('<goal>\nWhere is my order A-1042?\n</goal>')
    expect(agentPrompt).toContain(
      '<final_answer>\nYour order A-1042 has shipped and should arrive on 27 March.\n</final_answer>',
    )
    expect(agentPrompt).toContain('call lookup_order({"order_id":"A-1042"}) → ok: {"status":"shipped"')
  })

  test('a goal given by the caller replaces the task as what completeness is judged against', async () => {
    const [trace] = await loadTraceFile(join(FIXTURE_DIR, '../otlp/genai-agent-run.json'))
    await diagnose(trace, { judge: fakeJudgeClient(fake), goal: 'Tell the customer when order A-1042 arrives.' })
    const agentPrompt = fake.calls.find((c) => c.schemaName === 'agent_diagnosis')!.prompt
    expect(agentPrompt).toContain(
      "<goal>\nTell the customer when order A-1042 arrives.\n\n(the agent's task was: Where is my order A-1042?)\n</goal>",
    )
  })
})

describe('without a judge', () => {
  test('deterministic only, clearly flagged: detector verdicts, propagation, deterministic tool abuse', async () => {
    const trace = await loadTrace(`${FIXTURE_DIR}/41bbc898aa7de0f31d2382ff57700a76.json`)
    const d = await diagnose(trace)
    const findings = detect(trace)
    expect(d).toMatchObject({ mode: 'deterministic', judge: null, stats: { judgeCalls: 0, spansJudged: 0 } })
    expect(d.skipped).toEqual([
      ...SPAN_METRICS,
      SPAN_CATEGORY_METRIC,
      'agent.plan_efficiency',
      'agent.tool_coverage',
      'agent.completeness',
    ])
    expect(d.findings).toEqual(findings)
    const verdicts = d.spans.flatMap((s) => s.verdicts)
    expect(verdicts.map((v) => [v.spanId, v.metric, v.category])).toEqual(
      findings.map((f) => [f.spanId, `detector:${f.detector}`, f.category]),
    )
    expect(d.verdict.outcome).toBe(findings.length > 0 ? 'fail' : 'pass')
    expect(d.verdict.reason).toContain('the deterministic detectors (no judge configured)')
    expect(d.agent.verdicts.map((v) => [v.metric, v.scale])).toEqual([['agent.tool_abuse', 'ratio']])
  })
})

describe('cassettes', () => {
  test('a recorded diagnosis replays with zero judge calls and the same verdicts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'diagnose-cassette-'))
    try {
      const file = join(dir, 'run.json')
      const trace = await loadTrace(GAIA)
      fake.setRules([
        {
          when: { regex: TARGET_OUTPUT },
          respond: { verdict: 'fail', reason: 'no code block', fields: { error_category: 'Formatting Errors' } },
        },
      ])
      const recorder = withCassette(fakeJudgeClient(fake), { file, mode: 'record' })
      const recorded = await diagnose(trace, { judge: recorder })
      await recorder.flush()
      const made = fake.calls.length
      expect(made).toBe(recorded.stats.judgeCalls)

      const replayed = await diagnose(trace, { judge: withCassette(fakeJudgeClient(fake), { file, mode: 'replay' }) })
      expect(fake.calls.length).toBe(made)
      expect(replayed.stats).toMatchObject({ judgeCalls: 0, cachedCalls: made })
      expect(replayed.verdict).toEqual(recorded.verdict)
      expect(replayed.failingLeaves).toEqual(recorded.failingLeaves)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
