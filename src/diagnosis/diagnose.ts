// diagnose(trace, options): detectors, span judgements bottom-up, propagation, the agent pass.
import { diagnosisBudget } from './context-budget'
import { abortGroup } from '../judges/abort-group'
import { judgeInRunner } from '../judges/runner-judge'
import { detect } from '../metrics/detectors/index'
import { UNRECOGNIZED_ERROR_DETECTOR } from '../metrics/detectors/error-status'
import type { Span } from '../trace/span'
import type { SpanQuery, Trace } from '../trace/trace'
import type { JudgeInfo, Verdict } from '../verdict/verdict'
import { runAgentPass } from './agent-pass'
import { findingVerdict } from './findings'
import { traceToDiagnose, type DiagnoseInput } from './input'
import { countCategories, failingLeaves, traceVerdict } from './localize'
import { normalizePolicy, propagate } from './propagate'
import { judgeSpan } from './span-judge'
import { compactSteps } from './steps'
import {
  AGENT_METRICS,
  DEFAULT_SPAN_THRESHOLD,
  DiagnoseOptionsSchema,
  DiagnosisSchema,
  SPAN_CATEGORY_METRIC,
  SPAN_METRICS,
  type AgentMetric,
  type Diagnosis,
  type DiagnoseOptions,
  type DiagnosisStats,
} from './types'

/** Leaves judged when the caller selects nothing: where TRAIL (and people) expect errors to be named. */
const DEFAULT_SELECT: SpanQuery = { kind: ['llm', 'tool'] }
const DEFAULT_CONTEXT_STEPS = 4

/**
 * Diagnoses an agent run:
 * 1. deterministic detectors (always; findings become `detector:<name>` span verdicts);
 * 2. with a judge, one multi-aspect call per selected leaf span not already explained by a detector,
 *    each prompt within `budgetTokens` — calls go out at once and the judge's limiter paces them;
 *    a failed call makes that span unjudgeable and nothing else;
 * 3. propagation up the tree with the policy; failing leaves, category counts and the trace verdict;
 * 4. the agent-level pass (deterministic tool abuse; with a judge, all four metrics, chunked).
 * Without a judge the result says `mode: 'deterministic'` and lists the skipped judge metrics.
 * Takes a Trace or a live capture: `fromReadableSpans(...)` output, SDK spans, an InMemorySpanExporter.
 *
 * @example
 * const diagnosis = await diagnose(await loadTrace('run.json'), { judge: judgeFromEnv(), policy: { type: 'threshold', threshold: 0.3 } })
 * if (!diagnosis.verdict.pass) console.log(diagnosis.verdict.reason)
 */
export async function diagnose(input: DiagnoseInput, options: DiagnoseOptions = {}): Promise<Diagnosis> {
  const trace = traceToDiagnose(input)
  const parsed = DiagnoseOptionsSchema.safeParse(options)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new TypeError(`diagnose: invalid option ${issue.path.join('.') || '(options)'}: ${issue.message}`)
  }
  const opts = parsed.data
  // Inside a test, through the test file's cassette as the matchers' judge (decision 0043); a matcher's is already.
  const judge = opts.judge ? await judgeInRunner(opts.judge, 'diagnose') : undefined
  // The budget reads the configured judge's context (`;context=8k`), not the wrapper's.
  const budgetTokens = diagnosisBudget(opts.budgetTokens, opts.judge)
  const threshold = opts.threshold ?? DEFAULT_SPAN_THRESHOLD
  const policy = opts.policy ?? 'existential'
  const agentMetrics: AgentMetric[] =
    opts.agent === false ? [] : opts.agent === true || opts.agent === undefined ? [...AGENT_METRICS] : opts.agent

  const findings =
    opts.detectors === false
      ? []
      : detect(trace, opts.detectors === true || opts.detectors === undefined ? {} : opts.detectors)
  const verdictsBySpan = new Map<string, Verdict[]>()
  const add = (v: Verdict) => {
    const list = verdictsBySpan.get(v.spanId!)
    if (list) list.push(v)
    else verdictsBySpan.set(v.spanId!, [v])
  }
  for (const f of findings) add(findingVerdict(f))

  const steps = compactSteps(trace)
  const selected = selectionLeaves(trace, trace.find(opts.select ?? DEFAULT_SELECT))
  // An unrecognized error's category is a fallback, not an explanation: the judge still looks at its span.
  const explained = new Set(
    findings.filter((f) => f.detector !== UNRECOGNIZED_ERROR_DETECTOR && !f.unjudgeable).map((f) => f.spanId),
  )
  const toJudge = judge ? selected.filter((s) => opts.judgeDetectorSpans || !explained.has(s.id)) : []

  let spansDone = 0
  // One group: the first rejection (abort, config error) stops every other span and the agent pass, and
  // diagnose rejects only once they have all stopped, so no judge call of this run outlives it.
  const group = abortGroup(opts.signal)
  const spanRuns = toJudge.map((span) =>
    group.run(async (signal) => {
      const r = await judgeSpan(span, {
        trace,
        judge: judge!,
        budgetTokens,
        threshold,
        steps,
        contextSteps: opts.contextSteps ?? DEFAULT_CONTEXT_STEPS,
        signal,
      })
      opts.onProgress?.({ phase: 'spans', done: ++spansDone, total: toJudge.length })
      return r
    }),
  )
  const agentRun = group.run((signal) =>
    runAgentPass(trace, steps, {
      judge,
      metrics: agentMetrics,
      budgetTokens,
      threshold,
      goal: opts.goal,
      signal,
      onCall: (done, total) => opts.onProgress?.({ phase: 'agent', done, total }),
    }),
  )
  await group.settle()
  const [spanResults, agent] = await Promise.all([Promise.all(spanRuns), agentRun])
  for (const r of spanResults) r.verdicts.forEach(add)

  const spans = propagate(trace, verdictsBySpan, policy)
  const leaves = failingLeaves(trace, spans, policy)
  const infos: JudgeInfo[] = [...spanResults.flatMap((r) => r.verdicts), ...agent.verdicts].flatMap((v) =>
    v.judge ? [v.judge] : [],
  )
  const stats: DiagnosisStats = {
    ...callStats(infos, [...spanResults.map((r) => r.calls), agent.calls]),
    unjudgeable: spanResults.filter((r) => r.unjudgeable).length + agent.unjudgeable,
    maxPromptTokens: Math.max(0, ...spanResults.map((r) => r.promptTokens), ...agent.promptTokens),
    budgetTokens,
    spansSelected: selected.length,
    spansJudged: toJudge.length,
    spansSkipped: judge ? selected.length - toJudge.length : 0,
  }
  const mode = judge ? 'judge' : 'deterministic'
  const { promptTokens: _p, calls: _c, unjudgeable: _u, ...agentResult } = agent
  return DiagnosisSchema.parse({
    traceId: trace.traceId,
    mode,
    judge: judge?.id ?? null,
    policy: normalizePolicy(policy).type === 'existential' ? 'existential' : policy,
    threshold,
    verdict: traceVerdict(trace, spans, leaves, policy, mode),
    spans,
    failingLeaves: leaves,
    categories: countCategories(spans),
    findings,
    agent: agentResult,
    stats,
    skipped: judge
      ? []
      : [...SPAN_METRICS, SPAN_CATEGORY_METRIC, ...agentMetrics.filter((m) => m !== 'agent.tool_abuse')],
  } satisfies Diagnosis)
}

/** Selected spans with no selected descendant: a selected parent is judged through its children. */
function selectionLeaves(trace: Trace, selected: Span[]): Span[] {
  const ids = new Set(selected.map((s) => s.id))
  const covered = new Set<string>()
  // Spans whose ancestors were all visited already: a walk up stops at one, so deep chains stay linear.
  const walked = new Set<string>()
  for (const s of selected) {
    for (let a = trace.parent(s.id); a; a = trace.parent(a.id)) {
      if (ids.has(a.id)) covered.add(a.id)
      if (walked.has(a.id)) break
      walked.add(a.id)
    }
    walked.add(s.id)
  }
  return selected.filter((s) => !covered.has(s.id))
}

/** Calls made vs replayed (an unjudgeable call was still made), tokens and cost from the judge infos. */
function callStats(
  infos: JudgeInfo[],
  calls: Array<{ made: number; cached: number }>,
): Pick<DiagnosisStats, 'judgeCalls' | 'cachedCalls' | 'tokens' | 'costUsd'> {
  const costs = infos.map((i) => i.costUsd).filter((c): c is number => typeof c === 'number')
  return {
    // Every request that reached the judge (retries and failed samples included), as the report counts them.
    judgeCalls:
      infos.length > 0 && infos.every((i) => i.calls)
        ? infos.reduce((n, i) => n + i.calls!.made, 0)
        : calls.reduce((n, c) => n + c.made, 0),
    cachedCalls:
      infos.length > 0 && infos.every((i) => i.calls)
        ? infos.reduce((n, i) => n + i.calls!.replayed, 0)
        : calls.reduce((n, c) => n + c.cached, 0),
    tokens: {
      input: infos.reduce((n, i) => n + i.tokens.input, 0),
      output: infos.reduce((n, i) => n + i.tokens.output, 0),
    },
    costUsd: costs.length > 0 ? costs.reduce((n, c) => n + c, 0) : null,
  }
}
