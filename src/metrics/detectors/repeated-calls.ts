import { z } from 'zod'
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
  for (const span of trace.spans) {
    if (span.kind !== 'tool' && span.kind !== 'llm') continue
    const scope = agentScope(trace, span)
    const map = span.kind === 'tool' ? scopes : llmsByScope
    let list = map.get(scope)
    if (!list) map.set(scope, (list = []))
    list.push(span)
  }
  const out: Finding[] = []
  for (const tools of scopes.values()) out.push(...repeatedToolSpans(tools, opts))
  if (opts.includeLlmToolCalls) {
    for (const [scope, llms] of llmsByScope) if (!scopes.has(scope)) out.push(...repeatedLlmCalls(llms, opts))
  }
  return out
}

interface Group {
  first: Span
  last?: Span
  repeats: number
  /** The first call's outcome, computed only once the group sees a repeat (most calls are unique). */
  outcome?: string | undefined
}

function repeatedToolSpans(tools: Span[], opts: z.output<typeof RepeatedCallsOptionsSchema>): Finding[] {
  const groups = new Map<string, Group>()
  for (const span of tools) {
    const key = `${span.toolName ?? span.name}\u0000${canonical(span.toolArgs ?? span.input)}`
    const group = groups.get(key)
    if (!group) {
      groups.set(key, { first: span, repeats: 0 })
      continue
    }
    if (!('outcome' in group)) group.outcome = outcomeOf(group.first)
    const outcome = outcomeOf(span)
    // Unknown outcomes (no output recorded) cannot prove the repeat was useful, so they count.
    const same = !opts.requireSameOutcome || outcome === undefined || group.outcome === undefined || outcome === group.outcome
    if (!same) continue
    group.repeats++
    group.last = span
    group.outcome ??= outcome
  }
  const out: Finding[] = []
  for (const g of groups.values()) {
    if (g.repeats < opts.minRepeats || !g.last) continue
    const name = g.last.toolName ?? g.last.name
    const failed = hasErrorSignal(g.last) ? ', failing the same way each time' : opts.requireSameOutcome ? ' with the same result each time' : ''
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
  let prevKey: string | undefined
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
  for (const llm of llms) {
    const calls = toolCallsOf(llm)
    const key = calls.length > 0 ? calls.map((c) => `${c.name}\u0000${canonical(c.arguments)}`).join('\u0001') : undefined
    if (key !== undefined && key === prevKey) {
      run.push(llm)
      continue
    }
    flush()
    run = key === undefined ? [] : [llm]
    prevKey = key
  }
  flush()
  return out
}

function toolCallsOf(llm: Span): Array<{ name: string; arguments: string }> {
  const output = llm.output
  if (!Array.isArray(output)) return []
  return (output as Message[]).flatMap((m) => m?.toolCalls ?? [])
}

function agentScope(trace: Trace, span: Span): string {
  for (let p = trace.parent(span.id); p; p = trace.parent(p.id)) if (p.kind === 'agent') return p.id
  return ''
}

/** What a call got back: its error message, or its output (undefined when the trace did not record it). */
function outcomeOf(span: Span): string | undefined {
  if (hasErrorSignal(span)) {
    const event = span.events.find((e) => e.name === 'exception')
    return `error:${String(event?.attributes['exception.message'] ?? '')}:${span.statusMessage}`
  }
  if (span.output === undefined) return undefined
  return `ok:${typeof span.output === 'string' ? span.output : JSON.stringify(span.output)}`
}

/**
 * Arguments in a form where trivial differences vanish: keys sorted, strings trimmed, whitespace
 * collapsed and lower-cased, empty values ('' / {} / [] / null) equal, JSON strings parsed.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(normalize(value)) ?? 'null'
}

function normalize(value: unknown): unknown {
  if (typeof value === 'string') {
    const t = value.trim()
    if ((t.startsWith('{') || t.startsWith('[')) && t.length < 65_536) {
      try {
        return normalize(JSON.parse(t))
      } catch {
        // Not JSON after all: compare as text.
      }
    }
    return t === '' ? null : t.replace(/\s+/g, ' ').toLowerCase()
  }
  if (Array.isArray(value)) return value.length === 0 ? null : value.map(normalize)
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort()
    if (keys.length === 0) return null
    const out: Record<string, unknown> = {}
    for (const k of keys) out[k.trim().toLowerCase()] = normalize((value as Record<string, unknown>)[k])
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
