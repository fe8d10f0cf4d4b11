// The top-down pass: agent-level verdicts over the compact step list, chunked within the budget.
import { abortGroup } from '../judges/abort-group'
import { callJudge, type CallJudgeResult } from '../judges/judge-call'
import type { Judge, JudgeResponse } from '../judges/types'
import { judgeInfo } from '../metrics/judge-calls'
import { PROMPT_VERSION, SYSTEM } from '../metrics/prompts/agent-diagnosis'
import type { Trace } from '../trace/trace'
import type { Verdict } from '../verdict/verdict'
import { agentPrompts } from './agent-context'
import { fitToTokens } from './fit-tokens'
import { AGENT_ASPECTS, AgentJudgementSchema, type AgentJudgement } from './agent-judgement'
import { countCalls } from './span-judge'
import type { CompactStep } from './steps'
import { describeToolAbuse, toolAbuseFacts, toolAbuseVerdict, type ToolAbuseFacts } from './tool-abuse'
import type { AgentDiagnosis, AgentMetric } from './types'

/** What the agent pass needs. */
export interface AgentPassOptions {
  judge?: Judge
  metrics: readonly AgentMetric[]
  budgetTokens: number
  threshold: number
  goal?: string
  signal?: AbortSignal
  /** Called after each judge call, with (done, total). */
  onCall?: (done: number, total: number) => void
}

/** The agent pass's result and what its calls cost. */
export interface AgentPassResult extends AgentDiagnosis {
  promptTokens: number[]
  /** Judge calls made (unjudgeable ones included) and replayed from a cassette. */
  calls: { made: number; cached: number }
  unjudgeable: number
}

/** A deterministic tool-abuse failure caps the judge's score here: the facts outweigh an impression. */
const ABUSE_CAP = 2
const NO_CALLS = { made: 0, cached: 0 }
const MAX_OUTPUT_TOKENS = 1200

/**
 * Runs the agent-level metrics. Without a judge only the deterministic tool-abuse check runs. With a
 * judge, the step list is judged in one call, or — when it does not fit the budget — in parts, each
 * with the same header; part scores merge as `min` for plan efficiency and tool abuse (a flaw anywhere
 * counts) and from the last part for tool coverage and completeness (it holds the final answer, and
 * every part sees the whole run's tool counts). A deterministic tool-abuse failure caps that score at 2/5.
 *
 * @example
 * const agent = await runAgentPass(trace, compactSteps(trace), { judge, metrics: [...AGENT_METRICS], budgetTokens: 16_000, threshold: 0.5 })
 */
export async function runAgentPass(
  trace: Trace,
  steps: readonly CompactStep[],
  options: AgentPassOptions,
): Promise<AgentPassResult> {
  const facts = toolAbuseFacts(steps)
  const root = trace.spans.find((s) => s.kind === 'agent') ?? trace.roots[0]
  const base = { steps: steps.length, repeatedCalls: facts.repeated, unchangedRetries: facts.unchangedRetries }
  const wanted = new Set(options.metrics)
  if (wanted.size === 0) return { ...base, verdicts: [], chunks: 0, promptTokens: [], calls: NO_CALLS, unjudgeable: 0 }
  if (!options.judge) {
    const verdicts = wanted.has('agent.tool_abuse') ? [toolAbuseVerdict(facts, root?.id)] : []
    return { ...base, verdicts, chunks: 0, promptTokens: [], calls: NO_CALLS, unjudgeable: 0 }
  }
  const judge = options.judge
  // Built by characters, then counted with the judge's real tokenizer and rebuilt smaller if over budget.
  const prompts = await fitToTokens(
    (budgetTokens) =>
      agentPrompts(trace, steps, facts, {
        system: SYSTEM,
        schema: AgentJudgementSchema,
        budgetTokens,
        goal: options.goal,
      }),
    { budgetTokens: options.budgetTokens, system: SYSTEM, schema: AgentJudgementSchema, judge },
  )
  let done = 0
  const started = performance.now()
  // The parts stand or fall together: a rejection of one stops the others before this rejects.
  const group = abortGroup(options.signal)
  const runs = prompts.map((p) =>
    group.run(async (signal) => {
      const r = await callJudge(
        judge,
        {
          metric: 'agent-diagnosis',
          promptVersion: PROMPT_VERSION,
          system: SYSTEM,
          content: [{ type: 'text', text: p.text }],
          schema: AgentJudgementSchema,
          schemaName: 'agent_diagnosis',
          maxOutputTokens: MAX_OUTPUT_TOKENS,
        },
        { scoreOf: (o) => o.completeness.score, signal },
      )
      options.onCall?.(++done, prompts.length)
      return r
    }),
  )
  await group.settle()
  const results = await Promise.all(runs)
  const responses = results.flatMap((r) => (r.status === 'ok' ? (r.responses as JudgeResponse<unknown>[]) : []))
  const failed = results.find(
    (r): r is Extract<CallJudgeResult<AgentJudgement>, { status: 'unjudgeable' }> => r.status === 'unjudgeable',
  )
  const info = judgeInfo({
    provider: judge.provider,
    model: judge.model,
    promptVersion: PROMPT_VERSION,
    responses,
    // Every failed call and failed sample: its attempts were requests, its rejected reply's tokens were paid.
    errors: results.flatMap((r) => (r.status === 'unjudgeable' ? [r.error] : (r.errors ?? []))),
    latencyMs: Math.round(performance.now() - started),
  })
  const verdicts = failed
    ? unjudgeableVerdicts(wanted, facts, failed.cause, root?.id, options.threshold)
    : mergedVerdicts(
        results.map((r) => (r as Extract<typeof r, { status: 'ok' }>).output),
        wanted,
        facts,
        root?.id,
        options.threshold,
      )
  if (verdicts.length > 0) verdicts[0].judge = info
  const unjudgeable = results.filter((r) => r.status === 'unjudgeable').length
  const made = countCalls(responses)
  return {
    ...base,
    verdicts,
    chunks: prompts.length,
    promptTokens: prompts.map((p) => p.tokens),
    calls: { made: made.made + unjudgeable, cached: made.cached },
    unjudgeable,
  }
}

function mergedVerdicts(
  outputs: AgentJudgement[],
  wanted: Set<AgentMetric>,
  facts: ToolAbuseFacts,
  spanId: string | undefined,
  threshold: number,
): Verdict[] {
  const parts = outputs.length
  return AGENT_ASPECTS.filter((a) => wanted.has(a.metric)).map(({ metric, key, merge }) => {
    let index = parts - 1
    if (merge === 'min')
      outputs.forEach((o, i) => {
        if (o[key].score < outputs[index][key].score) index = i
      })
    let raw = outputs[index][key].score
    let reason = `${parts > 1 ? `part ${index + 1}/${parts}: ` : ''}${outputs[index][key].reason.trim()}`
    if (metric === 'agent.tool_abuse') {
      reason = `${reason} (deterministic check: ${describeToolAbuse(facts)})`
      if (!facts.pass) raw = Math.min(raw, ABUSE_CAP)
    }
    const score = (raw - 1) / 4
    const pass = score >= threshold
    const verdict: Verdict = {
      id: `agent:${metric}`,
      metric,
      level: 'agent',
      ...(spanId ? { spanId } : {}),
      scale: 'likert5',
      raw,
      score,
      threshold,
      pass,
      outcome: pass ? 'pass' : 'fail',
      reason,
    }
    if (metric === 'agent.tool_abuse' && !pass) verdict.category = 'Resource Abuse'
    return verdict
  })
}

function unjudgeableVerdicts(
  wanted: Set<AgentMetric>,
  facts: ToolAbuseFacts,
  cause: string,
  spanId: string | undefined,
  threshold: number,
): Verdict[] {
  return AGENT_ASPECTS.filter((a) => wanted.has(a.metric)).map(({ metric }) => {
    // The deterministic facts stand on their own: a failure there is a failure, judge or not.
    if (metric === 'agent.tool_abuse' && !facts.pass) return toolAbuseVerdict(facts, spanId)
    return {
      id: `agent:${metric}`,
      metric,
      level: 'agent',
      ...(spanId ? { spanId } : {}),
      scale: 'likert5',
      raw: null,
      score: null,
      threshold,
      pass: false,
      outcome: 'unjudgeable',
      reason: `unjudgeable: ${cause}`,
    } satisfies Verdict
  })
}
