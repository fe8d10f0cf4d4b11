// The deterministic part of tool abuse: identical calls repeated, failing calls retried unchanged.
import type { Verdict } from '../verdict/verdict'
import type { CompactStep } from './steps'

/** Share of calls that may be needless repeats before the deterministic check fails the run. */
export const TOOL_ABUSE_MIN_SCORE = 0.8

/** What the deterministic check counted. */
export interface ToolAbuseFacts {
  /** Tool calls, code actions and delegations (final answers excluded). */
  calls: number
  /** Calls identical (tool + canonical arguments, same agent) to an earlier call. */
  repeated: number
  /** Of those, calls whose identical predecessor had failed: retried unchanged, no adaptation. */
  unchangedRetries: number
  /** The worst offenders, for reasons: `web_search({"query":"x"}) ×3 (2 after it failed)`. */
  examples: string[]
  /** 1 − repeated / calls (1 with no calls). */
  score: number
  pass: boolean
}

/**
 * Counts repeated identical calls and unchanged retries of failing calls, per agent run.
 *
 * @example
 * const facts = toolAbuseFacts(compactSteps(trace))
 * facts.unchangedRetries // 2: the same failing search ran three times
 */
export function toolAbuseFacts(steps: readonly CompactStep[]): ToolAbuseFacts {
  const calls = steps.filter(
    (s) => (s.kind === 'call' || s.kind === 'code' || s.kind === 'delegate') && s.key !== undefined,
  )
  const last = new Map<string, { failed: boolean; count: number; afterFailure: number; label: string }>()
  let repeated = 0
  let unchangedRetries = 0
  for (const step of calls) {
    const id = `${step.scope}\u0001${step.key}`
    const seen = last.get(id)
    if (!seen) {
      last.set(id, { failed: step.failed, count: 1, afterFailure: 0, label: step.text.split(' → ')[0] })
      continue
    }
    repeated++
    seen.count++
    if (seen.failed) {
      unchangedRetries++
      seen.afterFailure++
    }
    seen.failed = step.failed
  }
  const examples = [...last.values()]
    .filter((g) => g.count > 1)
    .sort((a, b) => b.count - a.count)
    .slice(0, 3)
    .map((g) => `${g.label} ×${g.count}${g.afterFailure > 0 ? ` (${g.afterFailure} after it failed)` : ''}`)
  const score = calls.length === 0 ? 1 : 1 - repeated / calls.length
  return { calls: calls.length, repeated, unchangedRetries, examples, score, pass: score >= TOOL_ABUSE_MIN_SCORE }
}

/**
 * The facts in one sentence.
 *
 * @example
 * describeToolAbuse(facts) // '2 of 9 calls repeated an identical earlier call (1 retried a failing call unchanged): …'
 */
export function describeToolAbuse(facts: ToolAbuseFacts): string {
  if (facts.repeated === 0) return `none of ${facts.calls} calls repeated an identical earlier call`
  const retries = facts.unchangedRetries > 0 ? ` (${facts.unchangedRetries} retried a failing call unchanged)` : ''
  return `${facts.repeated} of ${facts.calls} calls repeated an identical earlier call${retries}: ${facts.examples.join('; ')}`
}

/**
 * The deterministic tool-abuse verdict (no judge): ratio scale, score 1 − repeated/calls, passing at
 * {@link TOOL_ABUSE_MIN_SCORE} (more than one needless call in five fails).
 *
 * @example
 * toolAbuseVerdict(toolAbuseFacts(steps), rootAgent?.id).pass
 */
export function toolAbuseVerdict(facts: ToolAbuseFacts, spanId?: string): Verdict {
  return {
    id: 'agent:agent.tool_abuse',
    metric: 'agent.tool_abuse',
    level: 'agent',
    ...(spanId ? { spanId } : {}),
    scale: 'ratio',
    raw: facts.repeated,
    score: facts.score,
    threshold: TOOL_ABUSE_MIN_SCORE,
    pass: facts.pass,
    outcome: facts.pass ? 'pass' : 'fail',
    reason: `deterministic check: ${describeToolAbuse(facts)}`,
    ...(facts.pass ? {} : { category: 'Resource Abuse' }),
  }
}
