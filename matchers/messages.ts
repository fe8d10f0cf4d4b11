import { formatScoreVsMin } from '../src/verdict/score'
import { oneLineExcerpt } from '../src/verdict/text'
import type { Verdict } from '../src/verdict/verdict'

/** How many characters of the received output a failure message quotes. */
const RECEIVED_EXCERPT = 240

/**
 * The first line of a failure message: `expect(received).not.toBeCorrect(reference)`.
 *
 * @example
 * matcherHint('toBeFaithfulToImage', true, 'image') // 'expect(received).not.toBeFaithfulToImage(image)'
 */
export function matcherHint(name: string, isNot = false, args = ''): string {
  return `expect(received).${isNot ? 'not.' : ''}${name}(${args})`
}

/** `"text…"` cut to a readable length, on one line. */
export function excerpt(text: string, max = RECEIVED_EXCERPT): string {
  return JSON.stringify(oneLineExcerpt(text, max))
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
export function verdictLines(verdict: Verdict, title: string, isNot = false): string[] {
  if (verdict.outcome === 'unjudgeable') {
    return [
      `${title}: unjudgeable — the judge gave no valid verdict, so this fails${isNot ? ' under .not too' : ''}`,
      `Cause: ${verdict.reason}`,
    ]
  }
  const expectation = isNot ? ' — expected it not to pass' : ''
  return [
    `${title}: ${verdict.outcome} (${formatScoreVsMin(verdict)})${expectation}`,
    `Reason: ${verdict.reason}`,
    ...(verdict.samples ? [`Samples: ${verdict.samples.join(', ')}`] : []),
    ...(verdict.subject !== undefined ? [`Received: ${excerpt(verdict.subject)}`] : []),
    ...(judgeLine(verdict) ? [judgeLine(verdict)!] : []),
  ]
}

/**
 * The whole failure message of an output matcher (called lazily by the runner).
 *
 * @example
 * verdictMessage({ name: 'toBeFaithfulToImage', args: 'image', title: 'Faithfulness', isNot: false, verdict })
 */
export function verdictMessage(options: { name: string; args?: string; title: string; isNot?: boolean; verdict: Verdict }): string {
  const { name, args, title, isNot, verdict } = options
  return [matcherHint(name, isNot, args), '', ...verdictLines(verdict, title, isNot)].join('\n')
}

/**
 * A message for a matcher that cannot run (wrong received value or options): hint, then what was wrong.
 *
 * @example
 * usageMessage('toBeCorrect', false, '', 'received must be a string … — got number')
 */
export function usageMessage(name: string, isNot: boolean | undefined, args: string, problem: string): string {
  return [matcherHint(name, isNot, args), '', problem].join('\n')
}

/**
 * The message of the un-awaited guard, with the failure each call would have reported.
 *
 * @example
 * notAwaitedMessage([{ name: 'toBeCorrect' }]) // 'expect(…).toBeCorrect() was not awaited — add `await` …'
 */
export function notAwaitedMessage(calls: Array<{ name: string; failure?: string }>): string {
  const list = [...new Set(calls.map((c) => `expect(…).${c.name}()`))].join(', ')
  const head = `${list} was not awaited — add \`await\`: the test finished before the judge answered, so the assertion could not fail it in place.`
  const failures = calls.flatMap((c) => (c.failure ? [`\n\nThe un-awaited assertion would have failed:\n${c.failure}`] : []))
  return head + failures.join('')
}
