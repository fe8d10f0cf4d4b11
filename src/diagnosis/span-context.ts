// The user message of a span judgement: the task, the enclosing step, the previous steps and the
// span's input/output, each cut head+tail so the whole request stays within the per-call budget.
import type { z } from 'zod'
import { section, sections } from '../metrics/prompts/shared'
import type { Span } from '../trace/span'
import type { Trace } from '../trace/trace'
import { canonicalView, type CanonicalView } from './canonical'
import { fencedTokens, fitFenced } from './fit-fenced'
import { errorText, fitPayload, payloadText, plainText } from './render'
import { agentName, runTask, stepLine, taskOf, type CompactStep } from './steps'
import { estimateTokens, requestTokens } from './tokens'
import { allocate, headTail, type BudgetClaim } from './truncate'

/** What a span prompt is built from. */
export interface SpanPromptOptions {
  system: string
  schema: z.ZodType
  /** Whole request, prompt side (system + user + schema), in estimated tokens. */
  budgetTokens: number
  /** Compact steps of the whole trace (computed once per trace). */
  steps: readonly CompactStep[]
  /** How many previous steps to show. */
  contextSteps: number
}

/** A built prompt and its estimated size (system + user + schema). */
export interface SpanPrompt {
  text: string
  tokens: number
}

/** Slack for estimator rounding per part and tag framing, on top of the measured frame. */
const SAFETY_TOKENS = 64

/**
 * The user text judging `span`, guaranteed (by construction, then checked) to keep the whole request
 * within `budgetTokens` however large the span or the trace.
 *
 * @example
 * const { text, tokens } = spanPrompt(trace, span, { system: SYSTEM, schema: SpanJudgementSchema, budgetTokens: 16_000, steps, contextSteps: 4 })
 */
export function spanPrompt(trace: Trace, span: Span, options: SpanPromptOptions): SpanPrompt {
  const parts = promptParts(trace, span, options)
  const fixed =
    requestTokens(options.system, '', options.schema) + estimateTokens(assemble(parts.map(() => ''))) + SAFETY_TOKENS
  let available = options.budgetTokens - fixed
  if (available < 200) {
    throw new RangeError(
      `budgetTokens ${options.budgetTokens} leaves no room for the span after the ${fixed}-token system prompt and schema; raise the budget`,
    )
  }
  const claims: BudgetClaim[] = parts.map((p) => ({ wants: p.wants, weight: p.weight }))
  for (let attempt = 0; attempt < 8; attempt++) {
    const grants = allocate(available, claims)
    const text = assemble(parts.map((p, i) => p.render(grants[i])))
    const tokens = requestTokens(options.system, text, options.schema)
    if (tokens <= options.budgetTokens) return { text, tokens }
    // Rounding in the parts' estimates went over: take the overflow off and share again.
    available -= tokens - options.budgetTokens + 16
  }
  // Unreachable in practice; the hard cut keeps the guarantee whatever happened above.
  const text = headTail(assemble(parts.map((p) => p.render(0))), Math.max(0, options.budgetTokens - fixed))
  return { text, tokens: requestTokens(options.system, text, options.schema) }
}

interface Part {
  tag: string
  wants: number
  weight: number
  render: (tokens: number) => string
}

const TAGS = ['task', 'enclosing_step', 'previous_steps', 'span', 'span_input', 'span_output'] as const

function assemble(texts: string[]): string {
  return sections(...TAGS.map((tag, i) => section(tag, texts[i] === '' ? '-' : texts[i])))
}

function textPart(tag: string, text: string, weight: number): Part {
  return { tag, wants: fencedTokens(text), weight, render: (n) => fitFenced(n, (m) => headTail(text, m)) }
}

function promptParts(trace: Trace, span: Span, options: SpanPromptOptions): Part[] {
  const view = canonicalView(trace)
  const root = view.spans.find((s) => s.kind === 'agent')
  const task = runTask(trace)
  const previous = previousSteps(view, span, options.steps, options.contextSteps)
  return [
    textPart('task', task, 1.5),
    enclosingPart(trace, span, root),
    linesPart(previous),
    textPart('span', spanHeader(span, view.position(span.id)), 1),
    payloadPart('span_input', span.input, 4),
    payloadPart('span_output', span.output, 3),
  ]
}

function payloadPart(tag: string, value: unknown, weight: number): Part {
  if (value === undefined) return { tag, wants: 3, weight, render: () => '(not recorded)' }
  return {
    tag,
    wants: fencedTokens(plainText(value)),
    weight,
    render: (n) => fitFenced(n, (m) => fitPayload(value, m)),
  }
}

/** The newest lines that fit; older ones are dropped first (the newest line is cut if it alone is too long). */
function linesPart(lines: string[]): Part {
  const text = lines.join('\n')
  return {
    tag: 'previous_steps',
    wants: fencedTokens(text),
    weight: 1,
    render: (n) =>
      fitFenced(n, (n) => {
        if (estimateTokens(text) <= n) return text
        const kept: string[] = []
        let room = n * 4
        for (let i = lines.length - 1; i >= 0; i--) {
          if (lines[i].length + 1 > room) break
          kept.unshift(lines[i])
          room -= lines[i].length + 1
        }
        if (kept.length === 0) return headTail(lines[lines.length - 1] ?? '', n)
        return [`(${lines.length - kept.length} earlier steps not shown)`, ...kept].join('\n').slice(0, n * 4)
      }),
  }
}

/**
 * Steps before the span in canonical order, newest last; its own actions and its ancestors (still
 * running) excluded. Not "ended before it started": starts are often whole milliseconds while ends
 * are not, so that test flips between two captures of the same run.
 */
function previousSteps(view: CanonicalView, span: Span, steps: readonly CompactStep[], count: number): string[] {
  if (count <= 0) return []
  const at = view.index(span.id)
  const position = view.position(span.id)
  const before = steps.filter((s) => {
    if (s.spanId === span.id) return false
    const i = view.index(s.spanId)
    return i >= 0 && i < at && !position.startsWith(`${view.position(s.spanId)}.`)
  })
  return before.slice(-count).map(stepLine)
}

/**
 * Where the span sits: its path (never cut), the sub-agent's task when it is not the root agent's, and
 * what its step produced (error, result) — each line cut on its own, so a huge error cannot push the
 * result out.
 */
function enclosingPart(trace: Trace, span: Span, root: Span | undefined): Part {
  const fixed = `path: ${trace.path(span.id).join(' › ')}`
  const lines: Array<{ label: string; text: string }> = []
  const agent = trace.ancestors(span.id).find((a) => a.kind === 'agent')
  if (agent && root && agent.id !== root.id)
    lines.push({ label: `agent: ${agentName(agent)} — its task: `, text: taskOf(agent) })
  const step = trace.ancestors(span.id).find((a) => a.kind === 'chain')
  if (step) {
    lines.push({ label: `step: ${step.name} (status ${step.status})`, text: '' })
    const error = errorText(step)
    if (error) lines.push({ label: 'step error: ', text: error })
    const out = payloadText(step.output)
    if (out) lines.push({ label: 'step result: ', text: out })
  }
  const framing = estimateTokens([fixed, ...lines.map((l) => l.label)].join('\n')) + lines.length + 1
  return {
    tag: 'enclosing_step',
    wants: framing + lines.reduce((n, l) => n + fencedTokens(l.text), 0),
    weight: 1,
    render: (n) =>
      fitFenced(n, (n) => {
        const grants = allocate(
          Math.max(0, n - framing),
          lines.map((l) => ({ wants: estimateTokens(l.text), weight: 1 })),
        )
        return [fixed, ...lines.map((l, i) => `${l.label}${headTail(l.text, grants[i])}`)].join('\n')
      }),
  }
}

/** Kind, name, positional id (never the span id: it is random per capture), tool, model, status and the span's own error. */
function spanHeader(span: Span, position: string): string {
  const lines = [`position: ${position}`, `kind: ${span.kind}`, `name: ${span.name}`]
  if (span.toolName) lines.push(`tool: ${span.toolName}`)
  if (span.model) lines.push(`model: ${span.model}`)
  lines.push(`status: ${span.status}`)
  const error = errorText(span)
  if (error) lines.push(`error: ${error}`)
  return lines.join('\n')
}
