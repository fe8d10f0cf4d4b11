// Decides how the fake judge answers one chat-completions request: fault first, then the first matching rule.
import { faultHeaders } from './faults'
import { matchesPrompt, type PromptView } from './request'
import { chatCompletion, estimateUsage, faultErrorBody, malformedContent, usageOf, type WireUsage } from './responses'
import type { FakeJudgeDefaultVerdict, FakeJudgeFault, FakeJudgeRespond, FakeJudgeRule } from './schemas'
import { inferVerdict, outOfRange, synthesizeReply, type VerdictWord } from './synthesize'

/** What the server should do with a request. */
export type Outcome =
  | {
      kind: 'send'
      status: number
      headers: Record<string, string>
      body: unknown
      usage: WireUsage | null
      rule: string | null
      verdict: VerdictWord | null
    }
  | { kind: 'hang' }
  | { kind: 'disconnect' }

export const NO_RULE_REASON = 'fake judge: no rule matched'

/** The first rule matching the request, or the default answer, with the name recorded in `calls`. */
export function pickRule(
  rules: FakeJudgeRule[],
  fallback: FakeJudgeDefaultVerdict | undefined,
  view: PromptView,
): { name: string; respond: FakeJudgeRespond; reason: string } {
  const index = rules.findIndex((rule) => matchesPrompt(rule.when, view))
  if (index >= 0) {
    const rule = rules[index]
    const name = rule.name ?? `#${index}`
    return { name, respond: rule.respond, reason: rule.respond.reason ?? `fake judge: rule ${name} matched` }
  }
  const respond = typeof fallback === 'string' ? { verdict: fallback } : (fallback ?? {})
  return { name: 'default', respond, reason: respond.reason ?? NO_RULE_REASON }
}

/**
 * The outcome for one request. `n` is its arrival number (for the completion id).
 * @example
 * const outcome = answer(view, { rules: [], model: 'fake-judge' }, undefined, 1) // a pass with the default reason
 */
export function answer(
  view: PromptView,
  config: {
    rules: FakeJudgeRule[]
    defaultVerdict?: FakeJudgeDefaultVerdict
    model: string
    countTokens?: (text: string) => number
  },
  fault: FakeJudgeFault | undefined,
  n: number,
): Outcome {
  if (fault?.type === 'hang') return { kind: 'hang' }
  if (fault?.type === 'disconnect') return { kind: 'disconnect' }
  if (fault?.type === 'rate-limit' || fault?.type === 'server-error') {
    const status = fault.type === 'rate-limit' ? 429 : (fault.status ?? 500)
    return {
      kind: 'send',
      status,
      headers: faultHeaders(fault),
      body: faultErrorBody(status),
      usage: null,
      rule: null,
      verdict: null,
    }
  }

  const picked = pickRule(config.rules, config.defaultVerdict, view)
  const verdict = inferVerdict(picked.respond.verdict, picked.respond.score, view.schema)
  let reply = synthesizeReply(view.schema, {
    verdict,
    score: picked.respond.score,
    reason: picked.reason,
    fields: picked.respond.fields ?? {},
  })
  if (fault?.type === 'out-of-range') reply = outOfRange(view.schema, reply)
  let content: string | null = JSON.stringify(reply)
  if (fault?.type === 'malformed-json') content = malformedContent(content)
  if (fault?.type === 'empty-choices') content = null

  const count = config.countTokens
  // Real o200k counts when the server loaded the tokenizer: the prompt text plus the JSON schema the API
  // injects for structured output, 85 tokens per (low-detail) image.
  const usage = count
    ? usageOf(
        count(view.prompt) + (view.schema ? count(JSON.stringify(view.schema)) : 0) + 85 * view.imageCount,
        content ? count(content) : 0,
      )
    : estimateUsage(view.prompt.length, view.imageCount, content?.length ?? 0)
  const body = chatCompletion({ n, model: view.model ?? config.model, content, usage })
  return { kind: 'send', status: 200, headers: {}, body, usage, rule: picked.name, verdict }
}
