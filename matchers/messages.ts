// Every failure message of the matchers is built here: the hint line, verdict lines, usage errors, the
// un-awaited guard's message, and how trace messages name spans, tool arguments and failing leaves.
import { metricLabel } from '../src/diagnosis/format'
import type { FailingLeaf } from '../src/diagnosis/types'
import type { Trace } from '../src/trace/trace'
import { formatScoreVsMin } from '../src/verdict/score'
import { terminalSafe } from '../src/verdict/safe-text'
import { oneLineExcerpt, shortSpanId } from '../src/verdict/text'
import type { Verdict } from '../src/verdict/verdict'
import type { MatcherUtils } from '../runner/context'

/** How many characters of the received output a failure message quotes. */
const RECEIVED_EXCERPT = 240

/**
 * The first line of a failure message: `expect(received).not.toBeCorrect(reference)`.
 *
 * @example
 * matcherHint('toBeFaithfulToImage', true, 'image') // 'expect(received).not.toBeFaithfulToImage(image)'
 */
export function matcherHint(name: string, isNot = false, args = '', utils?: MatcherUtils): string {
  // The runner's own hint when there is one (its colours and layout); the same words without.
  if (utils) return utils.matcherHint(name, 'received', args, { isNot })
  return `expect(received).${isNot ? 'not.' : ''}${name}(${args})`
}

/** `"text…"` cut to a readable length, on one line. */
export function excerpt(text: string, max = RECEIVED_EXCERPT): string {
  return JSON.stringify(oneLineExcerpt(text, max))
}

/** The received output, cut to a readable length on one line, printed by the runner when it can. */
function printExcerpt(text: string, utils: MatcherUtils | undefined): string {
  if (!utils) return terminalSafe(excerpt(text))
  return utils.printReceived(terminalSafe(oneLineExcerpt(text, RECEIVED_EXCERPT)))
}

/**
 * Judged content (a reason, a span or tool name) as a message may print it: its lines kept, every control
 * character in them shown as a visible stand-in, so it cannot move the cursor or overwrite a line (a reason
 * ending in `\x1b[1A\x1b[2K\rRubric: pass` printed a pass over the failure).
 */
function safeLines(text: string): string {
  return text.split('\n').map(terminalSafe).join('\n')
}

/** Judge, prompt version and whether the verdict was replayed, for the last line of a message. */
export function judgeLine(verdict: Verdict): string | undefined {
  const j = verdict.judge
  if (!j) return undefined
  return `Judge: ${j.provider}:${j.model} · ${j.promptVersion}${j.cached ? ' · replayed from cassette' : ''}`
}

/**
 * The body of a message about one verdict: metric, outcome, score vs threshold, then the judge's
 * reason (or, when unjudgeable, the cause), samples and judge.
 *
 * @example
 * verdictLines(verdict, 'Faithfulness', false)
 * // ['Faithfulness: fail (0/1, min 1)', 'Reason: the chart shows North America at $14.10 …', …]
 */
export function verdictLines(verdict: Verdict, title: string, isNot = false, utils?: MatcherUtils): string[] {
  if (verdict.outcome === 'unjudgeable') {
    return [
      `${title}: unjudgeable — the judge gave no valid verdict, so this fails${isNot ? ' under .not too' : ''}`,
      `Cause: ${safeLines(verdict.reason)}`,
    ]
  }
  const expectation = isNot ? ' — expected it not to pass' : ''
  return [
    `${title}: ${verdict.outcome} (${formatScoreVsMin(verdict)})${expectation}`,
    `Reason: ${safeLines(verdict.reason)}`,
    ...(verdict.samples ? [`Samples: ${verdict.samples.join(', ')}`] : []),
    ...(verdict.subject !== undefined ? [`Received: ${printExcerpt(verdict.subject, utils)}`] : []),
    ...(judgeLine(verdict) ? [judgeLine(verdict)!] : []),
  ]
}

/**
 * The whole failure message of an output matcher (called lazily by the runner).
 *
 * @example
 * verdictMessage({ name: 'toBeFaithfulToImage', args: 'image', title: 'Faithfulness', isNot: false, verdict })
 */
export function verdictMessage(options: {
  name: string
  args?: string
  title: string
  isNot?: boolean
  verdict: Verdict
  utils?: MatcherUtils
}): string {
  const { name, args, title, isNot, verdict, utils } = options
  return [matcherHint(name, isNot, args, utils), '', ...verdictLines(verdict, title, isNot, utils)].join('\n')
}

/**
 * A message for a matcher that cannot run (wrong received value or options): hint, then what was wrong.
 *
 * @example
 * usageMessage('toBeCorrect', false, '', 'received must be a string … — got number')
 */
export function usageMessage(
  name: string,
  isNot: boolean | undefined,
  args: string,
  problem: string,
  utils?: MatcherUtils,
): string {
  return [matcherHint(name, isNot, args, utils), '', problem].join('\n')
}

// --- trace messages: spans, tool arguments, failing leaves ---

/** Long paths keep the root and the three innermost names, where a reader looks first. */
export function formatSpanPath(names: readonly string[]): string {
  const shown = names.length > 5 ? [names[0], '…', ...names.slice(-3)] : names
  return shown.join(' › ')
}

/**
 * Where a span is, the way every trace message names it: `tool:search (id 4a1f9c2e…, path agent.run › Step 4 › search)`.
 *
 * @example
 * describeSpan(trace, span) // 'llm:LiteLLMModel.__call__ (id dc63c344…, path main › … › Step 1 › LiteLLMModel.__call__)'
 */
export function describeSpan(trace: Trace, span: { id: string; kind: string; name: string }): string {
  return terminalSafe(
    `${span.kind}:${span.name} (id ${shortSpanId(span.id)}, path ${formatSpanPath(trace.path(span.id))})`,
  )
}

/**
 * A value as compact one-line JSON cut to `max` characters, for tool arguments in messages. RegExps
 * and asymmetric matchers (in expected arguments) print as themselves, not as `{}`.
 *
 * @example
 * compactJson({ query: 'capital of France' }) // '{"query":"capital of France"}'
 * compactJson({ file: /\.mp3$/ })             // '{"file":/\.mp3$/}'
 */
export function compactJson(value: unknown, max = 120): string {
  const text =
    value === undefined ? '(no arguments recorded)' : typeof value === 'string' ? value : show(value, new Set())
  return oneLineExcerpt(text, max)
}

function show(value: unknown, seen: Set<object>): string {
  if (value instanceof RegExp) return String(value)
  if (typeof value === 'bigint') return String(value)
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value)
  const matcher = value as { asymmetricMatch?: unknown; toAsymmetricMatcher?: () => string; toString(): string }
  if (typeof matcher.asymmetricMatch === 'function') return matcher.toAsymmetricMatcher?.() ?? matcher.toString()
  if (seen.has(value)) return '[Circular]'
  seen.add(value)
  if (Array.isArray(value)) return `[${value.map((v) => show(v, seen)).join(',')}]`
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}:${show(v, seen)}`)
    .join(',')}}`
}

/** `1 span` / `3 spans`. */
export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`
}

/**
 * Text on one line, cut to `max` characters with `…` (reasons and causes can be long and multi-line).
 *
 * @example
 * excerptLine('first line\nsecond line', 12) // 'first line …'
 */
export function excerptLine(text: string, max = 200): string {
  return oneLineExcerpt(text, max)
}

/**
 * One failing leaf as the failure message lists it, in the reporter's format:
 * `tool:search (id 4a1f9c2e…, path agent.run › Step 4 › search) — Tool Output Misinterpretation (reasoning integrity 2/5): reason`.
 *
 * @example
 * leafLine(trace, leaf)
 */
export function leafLine(trace: Trace, leaf: FailingLeaf): string {
  const score = leaf.score === null ? '' : typeof leaf.raw === 'number' ? ` ${leaf.raw}/5` : ` ${leaf.score.toFixed(2)}`
  const metric = `${metricLabel(leaf.metric)}${score}`
  const what = leaf.category ? `${leaf.category} (${metric})` : metric
  return `${describeSpan(trace, { id: leaf.spanId, kind: leaf.kind, name: leaf.name })} — ${what}: ${excerptLine(leaf.reason, 300)}`
}
