import type { Span, SpanKind } from '../span'
import { asString, tokenCounts } from './common'
import type { ReadContext } from './context'
import { FlatMessages } from './messages'
import { readPayload } from './payload'

/** `openinference.span.kind` → our kind; kinds without a counterpart (EMBEDDING, RERANKER …) are `other`. */
const KINDS: Record<string, SpanKind> = {
  LLM: 'llm',
  TOOL: 'tool',
  AGENT: 'agent',
  CHAIN: 'chain',
  RETRIEVER: 'retriever',
  EMBEDDING: 'other',
  RERANKER: 'other',
  GUARDRAIL: 'other',
  EVALUATOR: 'other',
}

const IN_PREFIX = 'llm.input_messages.'
const OUT_PREFIX = 'llm.output_messages.'

/** Kind named by `openinference.span.kind` (any case); `other` when absent or unknown. */
export function openInferenceKind(value: unknown): SpanKind {
  return typeof value === 'string' ? (KINDS[value.toUpperCase()] ?? 'other') : 'other'
}

/**
 * Fills kind, model, tokens, input/output and tool fields of a span from its OpenInference attributes.
 * Works on any span whose `attributes` are flat OpenInference keys: TRAIL files, Phoenix/Arize OTLP
 * exports, in-memory SDK spans. Values may be strings (TRAIL) or typed (OTLP).
 *
 * @example
 * const span = { ...someSpan, attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search' } }
 * applyOpenInference(span, new ReadContext())
 * span.kind // 'tool'
 */
export function applyOpenInference(span: Span, ctx: ReadContext): void {
  const attrs = span.attributes
  span.kind = openInferenceKind(attrs['openinference.span.kind'])
  let inputs: FlatMessages | undefined
  let outputs: FlatMessages | undefined
  // One pass over the keys; only `llm.*` keys can be messages, so everything else is skipped by its first char.
  const keys = Object.keys(attrs)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    if (key.charCodeAt(0) !== 108 || key.charCodeAt(3) !== 46) continue
    if (key.startsWith(IN_PREFIX)) (inputs ??= new FlatMessages()).add(key, IN_PREFIX.length, attrs[key])
    else if (key.startsWith(OUT_PREFIX)) (outputs ??= new FlatMessages()).add(key, OUT_PREFIX.length, attrs[key])
  }
  const model = asString(attrs['llm.model_name'])
  if (model) span.model = model
  span.tokens = tokenCounts(attrs['llm.token_count.prompt'], attrs['llm.token_count.completion'], attrs['llm.token_count.total'])

  const inputValue = attrs['input.value']
  const outputValue = attrs['output.value']
  switch (span.kind) {
    case 'llm':
      // Never parse an LLM `input.value`: it re-encodes the whole conversation the flattened messages already hold.
      span.input = inputs?.result() ?? inputValue
      span.output = outputs?.result() ?? outputValue
      break
    case 'tool': {
      span.toolName = asString(attrs['tool.name']) ?? asString(attrs['tool_call.function.name'])
      const rawArgs = inputValue ?? attrs['tool_call.function.arguments']
      // Tool arguments are what a judge checks, so they are parsed whatever their size.
      span.toolArgs = toolArgs(readPayload(rawArgs, span, ctx, { limit: Infinity }))
      span.input = span.toolArgs
      span.output = readPayload(outputValue, span, ctx, { mime: attrs['output.mime_type'] })
      break
    }
    default:
      span.input = readPayload(inputValue, span, ctx, { mime: attrs['input.mime_type'] })
      span.output = readPayload(outputValue, span, ctx, { mime: attrs['output.mime_type'] })
      if (outputs || inputs) {
        span.input = inputs?.result() ?? span.input
        span.output = outputs?.result() ?? span.output
      }
  }
}

/** smolagents wraps tool calls as `{"args": [...], "kwargs": {...}}`: the kwargs are the arguments. */
function toolArgs(parsed: unknown): unknown {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return parsed
  const p = parsed as { args?: unknown; kwargs?: unknown }
  if (!('kwargs' in p) && !('args' in p)) return parsed
  const kwargs = p.kwargs
  const hasKwargs = kwargs !== null && typeof kwargs === 'object' && Object.keys(kwargs).length > 0
  if (hasKwargs) return kwargs
  if (Array.isArray(p.args) && p.args.length > 0) return p.args
  return kwargs ?? p.args
}

/** True if any attribute key is an OpenInference one (for spans that lack `openinference.span.kind`). */
export function hasOpenInferenceKeys(attrs: Record<string, unknown>): boolean {
  for (const key in attrs) {
    if (key === 'openinference.span.kind' || key.startsWith(IN_PREFIX) || key.startsWith(OUT_PREFIX) || key === 'llm.model_name' || key === 'tool.name') return true
  }
  return false
}
