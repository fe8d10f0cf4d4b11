import * as z from 'zod'
import type { Verdict } from '../src/verdict/verdict'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { compactJson, describeSpan, matcherHint, plural, usageMessage } from './messages'
import { parseOptions } from './parse-options'
import { matchesPartially } from './partial-match'
import { attachVerdicts } from '../runner/attach-verdicts'
import { collectToolCalls, isTool, type FoundToolCall } from './tool-calls'
import { resolveTrace } from './trace-received'
import { terminalSafe } from '../src/verdict/safe-text'

/**
 * Options of {@link toCallTool}: `args` is matched partially and deeply against the call's arguments
 * (asymmetric matchers and RegExps allowed); `times` asks for exactly that many matching calls.
 *
 * @example
 * ToCallToolOptionsSchema.parse({ args: { order_id: 'A-1042' }, times: 1 })
 */
export const ToCallToolOptionsSchema = z.strictObject({
  args: z.unknown().optional(),
  times: z.number().int().nonnegative().optional(),
})
export type ToCallToolOptions = z.infer<typeof ToCallToolOptionsSchema>

/** How many calls a message lists before it says how many more there were. */
const MAX_LISTED = 20

/**
 * Passes when the run called the tool `name` (tool name or span name; a RegExp tests either) — with
 * arguments containing `args` when given, exactly `times` times when given, else at least once.
 * Synchronous and deterministic: it reads executed tool spans, or, when the trace has no tool span at
 * all, the tool calls its LLM spans requested. The message lists the calls actually made.
 *
 * @example
 * expect(trace).toCallTool('lookup_order', { args: { order_id: 'A-1042' }, times: 1 })
 * expect(trace).not.toCallTool(/^delete_/)
 */
export function toCallTool(
  this: MatcherContext,
  received: unknown,
  name: string | RegExp,
  options?: ToCallToolOptions,
): MatcherResult {
  // Vitest leaves `isNot` undefined on positive assertions: compare with `true`, never by truthiness or `!==`.
  const isNot = this.isNot === true
  const hint = { name: 'toCallTool', args: options === undefined ? 'name' : 'name, options', isNot }
  if (!(name instanceof RegExp) && (typeof name !== 'string' || name === '')) {
    throw new TypeError(
      usageMessage(
        hint.name,
        hint.isNot,
        hint.args,
        `the tool name must be a non-empty string or a RegExp — got ${name === '' ? 'an empty string' : typeof name}`,
      ),
    )
  }
  const { args, times } = parseOptions(ToCallToolOptionsSchema, options, {
    ...hint,
    allowed: '{ args?, times?: a whole number ≥ 0 }',
  })
  const trace = resolveTrace(received, hint)
  const { calls, source } = collectToolCalls(trace)
  const sameName = calls.filter((c) => isTool(c, name))
  const matching = args === undefined ? sameName : sameName.filter((c) => matchesPartially(c.args, args))
  const pass = times === undefined ? matching.length > 0 : matching.length === times

  const wanted = `${typeof name === 'string' ? JSON.stringify(name) : String(name)}${args === undefined ? '' : ` with arguments matching ${compactJson(args)}`}`
  const count =
    times === undefined
      ? isNot
        ? 'no call of tool'
        : 'a call of tool'
      : isNot
        ? `not exactly ${times} calls of tool`
        : `exactly ${plural(times, 'call')} of tool`
  const found = `found ${plural(matching.length, 'matching call')}${args !== undefined && sameName.length > matching.length ? ` (${sameName.length - matching.length} more with other arguments)` : ''}`
  const summary = `Expected ${count} ${wanted}; ${found}.`
  const verdict: Verdict = {
    metric: 'tool-call',
    level: 'agent',
    scale: 'binary',
    raw: matching.length,
    score: pass ? 1 : 0,
    threshold: 1,
    pass,
    outcome: pass ? 'pass' : 'fail',
    reason: summary,
  }
  // The verdict says whether the call was made; the assertion whether that was expected (`.not`).
  attachVerdicts(this, [verdict], undefined, { matcher: hint.name, passed: pass !== isNot })
  const utils = this.utils
  const message = () =>
    [matcherHint(hint.name, isNot, hint.args, utils), '', summary, ...listCalls(trace, calls, source, matching)].join(
      '\n',
    )
  return {
    pass,
    message,
    actual: calls.map((c) => ({ name: c.name, args: c.args })),
    expected: {
      name: String(name),
      ...(args === undefined ? {} : { args }),
      ...(times === undefined ? {} : { times }),
    },
  }
}

function listCalls(
  trace: Parameters<typeof describeSpan>[0],
  calls: FoundToolCall[],
  source: string,
  matching: FoundToolCall[],
): string[] {
  const from = source === 'tool-spans' ? 'from tool spans' : 'requested by LLM spans — the trace has no tool spans'
  if (calls.length === 0) return [`The run made no tool calls (${from}).`]
  const hits = new Set(matching)
  const lines = calls
    .slice(0, MAX_LISTED)
    .map(
      (c, i) =>
        `  ${hits.has(c) ? '→' : ' '} ${i + 1}. ${terminalSafe(`${c.name} ${compactJson(c.args)}`)} — ${describeSpan(trace, c.span)}`,
    )
  if (calls.length > MAX_LISTED) lines.push(`    … and ${calls.length - MAX_LISTED} more`)
  return [`Tool calls made (${calls.length}, ${from}; → marks a match):`, ...lines]
}
