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
  let inputs: FlatMessages | undefined
  let outputs: FlatMessages | undefined
  let kind: unknown, model: unknown, prompt: unknown, completion: unknown, total: unknown
  let inputValue: unknown, outputValue: unknown, inputMime: unknown, outputMime: unknown
  let toolName: unknown, functionName: unknown, functionArgs: unknown
  // One pass over the keys picks every attribute read here: `attrs[key]` inside `for…in` is a plain field
  // load, where a lookup by a constant name on objects of ever-different shapes is a hash lookup each.
  for (const key in attrs) {
    switch (key) {
      case 'openinference.span.kind':
        kind = attrs[key]
        break
      case 'llm.model_name':
        model = attrs[key]
        break
      case 'llm.token_count.prompt':
        prompt = attrs[key]
        break
      case 'llm.token_count.completion':
        completion = attrs[key]
        break
      case 'llm.token_count.total':
        total = attrs[key]
        break
      case 'input.value':
        inputValue = attrs[key]
        break
      case 'output.value':
        outputValue = attrs[key]
        break
      case 'input.mime_type':
        inputMime = attrs[key]
        break
      case 'output.mime_type':
        outputMime = attrs[key]
        break
      case 'tool.name':
        toolName = attrs[key]
        break
      case 'tool_call.function.name':
        functionName = attrs[key]
        break
      case 'tool_call.function.arguments':
        functionArgs = attrs[key]
        break
      default: {
        // Only `llm.*` keys can be messages, so everything else is skipped by its first chars, and the
        // fifth char picks the one prefix worth testing (startsWith is the costly part, once per message key).
        if (key.charCodeAt(0) !== 108 || key.charCodeAt(3) !== 46) break
        const fifth = key.charCodeAt(4)
        if (fifth === 105 && key.startsWith(IN_PREFIX))
          (inputs ??= new FlatMessages()).add(key, IN_PREFIX.length, attrs[key])
        else if (fifth === 111 && key.startsWith(OUT_PREFIX))
          (outputs ??= new FlatMessages()).add(key, OUT_PREFIX.length, attrs[key])
      }
    }
  }
  span.kind = openInferenceKind(kind)
  const modelName = asString(model)
  if (modelName) span.model = modelName
  span.tokens = tokenCounts(prompt, completion, total, (message) =>
    ctx.warnTokens(span.traceId, span.id, span.name, message),
  )

  switch (span.kind) {
    case 'llm':
      // Never parse an LLM `input.value`: it re-encodes the whole conversation the flattened messages already hold.
      span.input = inputs?.result() ?? inputValue
      span.output = outputs?.result() ?? outputValue
      break
    case 'tool': {
      span.toolName = asString(toolName) ?? asString(functionName)
      const rawArgs = inputValue ?? functionArgs
      // Tool arguments are what a judge checks, so they are parsed whatever their size.
      span.toolArgs = toolArgs(readPayload(rawArgs, span, ctx, { limit: Infinity }))
      span.input = span.toolArgs
      span.output = readPayload(outputValue, span, ctx, { mime: outputMime })
      break
    }
    default:
      span.input = readPayload(inputValue, span, ctx, { mime: inputMime })
      span.output = readPayload(outputValue, span, ctx, { mime: outputMime })
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
    if (
      key === 'openinference.span.kind' ||
      key.startsWith(IN_PREFIX) ||
      key.startsWith(OUT_PREFIX) ||
      key === 'llm.model_name' ||
      key === 'tool.name'
    )
      return true
  }
  return false
}
