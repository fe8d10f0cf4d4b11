import * as z from 'zod'
import { MAX_NESTING_DEPTH, parseBoundedJson } from '../../trace/depth'
import type { Message, Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'
import { quoteEvidence, type Finding } from './finding'
import { spanLabel } from './localize'
import { hasErrorSignal } from './signals'

export const REPEATED_CALLS_DETECTOR = 'repeated-calls'

/**
 * Options of the repeated-calls detector.
 * - `minRepeats`: how many needless repeats of one call (after the first) are flagged; default 2, i.e.
 *   the third identical call.
 * - `requireSameOutcome`: only count a repeat that got the same result (or the same error) as the call
 *   it repeats — re-reading a page that changed is not abuse; default true.
 * - `includeLlmToolCalls`: in agent runs without TOOL spans, compare the tool calls of consecutive LLM
 *   outputs instead; default true.
 *
 * @example
 * detect(trace, { repeatedCalls: RepeatedCallsOptionsSchema.partial().parse({ minRepeats: 3 }) })
 */
export const RepeatedCallsOptionsSchema = z.object({
  minRepeats: z.number().int().min(1).default(2),
  requireSameOutcome: z.boolean().default(true),
  includeLlmToolCalls: z.boolean().default(true),
})
export type RepeatedCallsOptions = z.input<typeof RepeatedCallsOptionsSchema>

const DEFAULTS = RepeatedCallsOptionsSchema.parse({})

/** Attributes that hold a tool call's raw arguments, quoted as evidence. */
const RAW_ARGS_KEYS = ['input.value', 'gen_ai.tool.call.arguments', 'tool_call.function.arguments', 'tool.arguments']

/**
 * Resource Abuse: the same tool called with the same (normalized) arguments again and again within one
 * agent run, reported once per call on its last needless repeat (TRAIL's convention).
 *
 * @example
 * detectRepeatedCalls(trace, { minRepeats: 1 }) // flags the second identical call already
 */
export function detectRepeatedCalls(trace: Trace, options: RepeatedCallsOptions = {}): Finding[] {
  const opts = Object.keys(options).length === 0 ? DEFAULTS : RepeatedCallsOptionsSchema.parse(options)
  const scopes = new Map<string, Span[]>()
  const llmsByScope = new Map<string, Span[]>()
  const scopeOf = agentScopes(trace)
  for (let i = 0; i < trace.spans.length; i++) {
    const span = trace.spans[i]
    if (span.kind !== 'tool' && span.kind !== 'llm') continue
    const scope = scopeOf[i]
    const map = span.kind === 'tool' ? scopes : llmsByScope
    let list = map.get(scope)
    if (!list) map.set(scope, (list = []))
    list.push(span)
  }
  const out: Finding[] = []
  for (const tools of scopes.values()) for (const f of repeatedToolSpans(tools, opts)) out.push(f)
  if (opts.includeLlmToolCalls) {
    for (const [scope, llms] of llmsByScope)
      if (!scopes.has(scope)) for (const f of repeatedLlmCalls(llms, opts)) out.push(f)
  }
  return out
}

interface Group {
  first: Span
  last?: Span
  repeats: number
  /** The first call's outcome, computed only once the group sees a repeat (most calls are unique). */
  outcome?: Outcome | undefined
}

function repeatedToolSpans(tools: Span[], opts: z.output<typeof RepeatedCallsOptionsSchema>): Finding[] {
  // Only a tool called more than once can repeat a call: skip normalizing the arguments of the others.
  const calls = new Map<string, number>()
  for (let i = 0; i < tools.length; i++) {
    const name = tools[i].toolName ?? tools[i].name
    calls.set(name, (calls.get(name) ?? 0) + 1)
  }
  const groups = new Map<string, Group>()
  // The same groups in the order first seen, walked at the end without a Map iterator.
  const inOrder: Group[] = []
  for (let i = 0; i < tools.length; i++) {
    const span = tools[i]
    const name = span.toolName ?? span.name
    if (calls.get(name) === 1) continue
    const key = `${name}\u0000${canonical(span.toolArgs ?? span.input)}`
    const group = groups.get(key)
    if (!group) {
      const created: Group = { first: span, repeats: 0 }
      groups.set(key, created)
      inOrder.push(created)
      continue
    }
    if (!('outcome' in group)) group.outcome = outcomeOf(group.first)
    const outcome = outcomeOf(span)
    // Unknown outcomes (no output recorded) cannot prove the repeat was useful, so they count.
    const same =
      !opts.requireSameOutcome ||
      outcome === undefined ||
      group.outcome === undefined ||
      sameOutcome(outcome, group.outcome)
    if (!same) continue
    group.repeats++
    group.last = span
    group.outcome ??= outcome
  }
  const out: Finding[] = []
  for (const g of inOrder) {
    if (g.repeats < opts.minRepeats || !g.last) continue
    const name = g.last.toolName ?? g.last.name
    const failed = hasErrorSignal(g.last)
      ? ', failing the same way each time'
      : opts.requireSameOutcome
        ? ' with the same result each time'
        : ''
    out.push({
      spanId: g.last.id,
      category: 'Resource Abuse',
      detector: REPEATED_CALLS_DETECTOR,
      evidence: argsEvidence(g.last),
      reason: `${name} was called ${g.repeats + 1} times with the same arguments in this agent run${failed} (first: ${spanLabel(g.first)})`,
      severity: 'low',
    })
  }
  return out
}

/** Consecutive LLM outputs that request exactly the same tool calls (traces without TOOL spans). */
function repeatedLlmCalls(llms: Span[], opts: z.output<typeof RepeatedCallsOptionsSchema>): Finding[] {
  const out: Finding[] = []
  let run: Span[] = []
  const flush = () => {
    if (run.length - 1 >= opts.minRepeats) {
      const last = run[run.length - 1]
      const calls = toolCallsOf(last)
      out.push({
        spanId: last.id,
        category: 'Resource Abuse',
        detector: REPEATED_CALLS_DETECTOR,
        evidence: quoteEvidence(calls[0].arguments || calls[0].name),
        reason: `${run.length} consecutive model calls requested the same tool call${calls.length > 1 ? 's' : ''} (${calls.map((c) => c.name).join(', ')}) (first: ${spanLabel(run[0])})`,
        severity: 'low',
      })
    }
  }
  let prevCalls: ToolCallLike[] = []
  for (let i = 0; i < llms.length; i++) {
    const llm = llms[i]
    const calls = toolCallsOf(llm)
    if (calls.length > 0 && sameCalls(prevCalls, calls)) {
      run.push(llm)
      continue
    }
    flush()
    run = calls.length === 0 ? [] : [llm]
    prevCalls = calls
  }
  flush()
  return out
}

type ToolCallLike = { name: string; arguments: string }

/** The calls' key: names and canonical arguments. */
function callsKey(calls: ToolCallLike[]): string {
  return calls.map((c) => `${c.name}\u0000${canonical(c.arguments)}`).join('\u0001')
}

/**
 * Whether two lists of tool calls have the same {@link callsKey} (an empty list matches none),
 * normalizing arguments only when names agree and the raw arguments differ.
 */
function sameCalls(a: ToolCallLike[], b: ToolCallLike[]): boolean {
  if (a.length === 0 || a.length !== b.length)
    return plainNames(a) && plainNames(b) ? false : a.length > 0 && callsKey(a) === callsKey(b)
  for (let i = 0; i < a.length; i++) {
    // Names that could fake the key's separators take the slow, literal path.
    if (!plainName(a[i].name) || !plainName(b[i].name)) return callsKey(a) === callsKey(b)
    if (a[i].name !== b[i].name) return false
  }
  for (let i = 0; i < a.length; i++) {
    if (a[i].arguments !== b[i].arguments && canonical(a[i].arguments) !== canonical(b[i].arguments)) return false
  }
  return true
}

const SEPARATORS = /[\u0000\u0001]/

function plainName(name: unknown): boolean {
  return typeof name === 'string' && !SEPARATORS.test(name)
}

function plainNames(calls: ToolCallLike[]): boolean {
  return calls.every((c) => plainName(c.name))
}

function toolCallsOf(llm: Span): Array<{ name: string; arguments: string }> {
  const output = llm.output
  if (!Array.isArray(output)) return []
  // Most outputs are one message without tool calls: no flatMap then.
  if (output.length === 1) {
    const calls: unknown = (output[0] as Message | undefined)?.toolCalls ?? []
    return (Array.isArray(calls) ? calls : [calls]) as Array<{ name: string; arguments: string }>
  }
  return (output as Message[]).flatMap((m) => m?.toolCalls ?? [])
}

/**
 * For each span of `trace.spans`, the id of its nearest agent ancestor ('' when none). The spans are in
 * depth-first order, so a stack of the open ancestors gives every span's scope in one pass.
 */
function agentScopes(trace: Trace): string[] {
  const scopes: string[] = new Array(trace.spans.length)
  // The open ancestors: their ids, and the scope each gives its children.
  const openIds: string[] = []
  const openScopes: string[] = []
  for (let i = 0; i < trace.spans.length; i++) {
    const span = trace.spans[i]
    while (openIds.length > 0 && openIds[openIds.length - 1] !== span.parentId) {
      openIds.pop()
      openScopes.pop()
    }
    const scope = openScopes.length === 0 ? '' : openScopes[openScopes.length - 1]
    scopes[i] = scope
    openIds.push(span.id)
    openScopes.push(span.kind === 'agent' ? span.id : scope)
  }
  return scopes
}

/** What a call got back: its error (message and status), or its output as text. */
interface Outcome {
  error: boolean
  text: string
}

/** What a call got back: its error message, or its output (undefined when the trace did not record it). */
function outcomeOf(span: Span): Outcome | undefined {
  if (hasErrorSignal(span)) {
    const event = span.events.find((e) => e.name === 'exception')
    return { error: true, text: `${String(event?.attributes['exception.message'] ?? '')}:${span.statusMessage}` }
  }
  if (span.output === undefined) return undefined
  // The output text itself, not a prefixed copy: page outputs run to many KB and are compared in place.
  if (typeof span.output === 'string') return { error: false, text: span.output }
  return { error: false, text: JSON.stringify(span.output, withoutCallIds) ?? '' }
}

// Keys that name the call a result answers, not the result: a framework's result envelope (LangChain's
// ToolMessage records `tool_call_id`) carries a new one on every call, so two identical results never compared
// equal.
const CALL_ID_KEYS = new Set(['tool_call_id', 'toolCallId', 'call_id'])

function withoutCallIds(key: string, value: unknown): unknown {
  return CALL_ID_KEYS.has(key) ? undefined : value
}

function sameOutcome(a: Outcome, b: Outcome): boolean {
  return a.error === b.error && a.text === b.text
}

/**
 * Arguments in a form where trivial differences vanish: keys sorted, strings trimmed, whitespace
 * collapsed and lower-cased, empty values ('' / {} / [] / null) equal, JSON strings parsed.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(normalize(value)) ?? 'null'
}

// Whitespace that `\s+` → ' ' would change: two in a row, or any but a plain space.
const ODD_SPACE = /\s\s|[^\S ]/

/** Past this depth arguments are compared as one opaque marker: an in-memory span may nest without bound. */
const TOO_DEEP = '\u0000nested too deep'

function normalize(value: unknown, depth = 0): unknown {
  if (depth > MAX_NESTING_DEPTH) return TOO_DEEP
  if (typeof value === 'string') {
    const t = value.trim()
    if ((t.startsWith('{') || t.startsWith('[')) && t.length < 65_536) {
      // Not JSON after all (or too deep to walk): compare as text.
      const parsed = parseBoundedJson(t)
      if (parsed !== undefined) return normalize(parsed, depth + 1)
    }
    if (t === '') return null
    // Collapsing whitespace changes nothing when every run of it is one plain space: no copy then.
    return (ODD_SPACE.test(t) ? t.replace(/\s+/g, ' ') : t).toLowerCase()
  }
  if (Array.isArray(value)) return value.length === 0 ? null : value.map((v) => normalize(v, depth + 1))
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort()
    if (keys.length === 0) return null
    const out: Record<string, unknown> = {}
    for (const k of keys) out[k.trim().toLowerCase()] = normalize((value as Record<string, unknown>)[k], depth + 1)
    return out
  }
  return value ?? null
}

function argsEvidence(span: Span): string {
  for (const key of RAW_ARGS_KEYS) {
    const raw = span.attributes[key]
    if (typeof raw === 'string' && raw !== '') return quoteEvidence(raw)
  }
  const args = span.toolArgs ?? span.input
  return quoteEvidence(typeof args === 'string' ? args : (JSON.stringify(args) ?? span.name))
}
