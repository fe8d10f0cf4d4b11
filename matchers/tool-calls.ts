import type { Message, Span } from '../src/trace/span'
import { matchesOnce, type Trace } from '../src/trace/trace'

/** One tool call found in a trace: an executed tool span, or a call an LLM asked for. */
export interface FoundToolCall {
  /** The tool's name (`toolName`, else the span name). */
  name: string
  /** The arguments: the tool span's `toolArgs`, or the LLM's tool-call arguments parsed from JSON when they parse. */
  args: unknown
  /** The span that holds the call (the tool span, or the LLM span that requested it). */
  span: Span
}

/** Where {@link collectToolCalls} found the calls. */
export type ToolCallSource = 'tool-spans' | 'llm-requests'

/**
 * The tool calls of a run, in depth-first order. Executed tool spans are the truth when the trace has
 * any; only a trace with no tool span at all (tools not instrumented) falls back to the tool calls its
 * LLM spans requested — mixing both would count each instrumented call twice.
 *
 * @example
 * const { calls, source } = collectToolCalls(trace)
 * calls.filter((c) => c.name === 'search').length
 */
export function collectToolCalls(trace: Trace): { calls: FoundToolCall[]; source: ToolCallSource } {
  const tools = trace.spans.filter((s) => s.kind === 'tool')
  if (tools.length > 0)
    return {
      calls: tools.map((span) => ({ name: span.toolName ?? span.name, args: span.toolArgs ?? span.input, span })),
      source: 'tool-spans',
    }
  return { calls: requestedCalls(trace), source: 'llm-requests' }
}

function requestedCalls(trace: Trace): FoundToolCall[] {
  const llms = trace.spans.filter((s) => s.kind === 'llm')
  // A framework LLM span around the provider's LLM span repeats its output: read the innermost only.
  const wrappers = new Set(
    llms.flatMap((s) =>
      trace
        .ancestors(s.id)
        .filter((a) => a.kind === 'llm')
        .map((a) => a.id),
    ),
  )
  const calls: FoundToolCall[] = []
  for (const span of llms) {
    if (wrappers.has(span.id) || !Array.isArray(span.output)) continue
    for (const message of span.output as Message[]) {
      for (const call of message.toolCalls ?? []) calls.push({ name: call.name, args: parseArgs(call.arguments), span })
    }
  }
  return calls
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** True when `call` is the tool `name`: its tool name or its span name equals it (or matches the RegExp). */
export function isTool(call: FoundToolCall, name: string | RegExp): boolean {
  const names = [call.name, call.span.name]
  return names.some((n) => (typeof name === 'string' ? n === name : matchesOnce(name, n)))
}
