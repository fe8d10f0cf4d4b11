// What a verdict means for its assertion, and the counts every output shows: computed here once.
import type { JudgeInfo, Verdict, VerdictAssertion } from './verdict'

/** A verdict's part in its assertion: `pass` also for a `.not` assertion on a verdict judged `fail`. */
export type AssertionStatus = 'pass' | 'fail' | 'unjudgeable'

/**
 * The assertion a verdict belongs to. Verdicts made outside a matcher (or recorded before the field
 * existed) are their own positive assertion, passed when the judge passed them.
 *
 * @example
 * assertionOf(v).negated // true for expect(x).not.toBeCorrect(…)
 */
export function assertionOf(v: Verdict, fallbackId = ''): VerdictAssertion {
  return v.assertion ?? { id: fallbackId, matcher: v.metric, negated: false, passed: v.outcome === 'pass' }
}

/**
 * Whether this verdict counts as failing in reports. Unjudgeable is its own status (never a pass, under
 * `.not` too). A passed assertion makes every verdict of it pass — `.not` on a verdict judged `fail`
 * included. A failed positive assertion is failing on its `fail` verdicts (not on the spans that passed);
 * a failed `.not` assertion is failing on every verdict (each was judged a pass it was expected not to be).
 *
 * @example
 * assertionStatus({ ...verdict, outcome: 'fail', assertion: { id: 'a', matcher: 'toBeCorrect', negated: true, passed: true } }) // 'pass'
 */
export function assertionStatus(v: Verdict): AssertionStatus {
  if (v.outcome === 'unjudgeable') return 'unjudgeable'
  const a = assertionOf(v)
  if (a.passed) return 'pass'
  if (a.negated) return 'fail'
  return v.outcome === 'fail' ? 'fail' : 'pass'
}

/** `fail (expected not)` when the judge's verdict differs from what the reports count it as. */
export function judgedNote(v: Verdict): string | undefined {
  const a = v.assertion
  if (!a?.negated || v.outcome === 'unjudgeable') return undefined
  return `judged ${v.outcome}, expected not`
}

/** Requests behind one verdict, counted apart (older verdicts: one request, made or replayed). */
export function callsOf(judge: JudgeInfo | undefined): NonNullable<JudgeInfo['calls']> {
  if (!judge) return { made: 0, replayed: 0, retries: 0, reasks: 0 }
  return judge.calls ?? { made: judge.cached ? 0 : 1, replayed: judge.cached ? 1 : 0, retries: 0, reasks: 0 }
}

/**
 * Assertion counts of one test: its recorded `assertions` (which include those without verdicts), then
 * the verdicts' own (ids group the verdicts of one assertion).
 */
export function countAssertions(
  verdicts: readonly Verdict[],
  assertions: readonly VerdictAssertion[] = [],
): { assertions: number; failed: number } {
  const passed = new Map<string, boolean>()
  for (const a of assertions) passed.set(a.id, (passed.get(a.id) ?? true) && a.passed)
  verdicts.forEach((v, i) => {
    // The matcher's word decides (`allowUnjudgeable` can pass an assertion with unjudgeable spans).
    // Without one, a test's span verdicts came from one trace assertion; any other verdict is its own.
    const a = assertionOf(v, v.level === 'span' ? '#spans' : `#verdict-${i}`)
    passed.set(a.id, (passed.get(a.id) ?? true) && a.passed)
  })
  let failed = 0
  for (const ok of passed.values()) if (!ok) failed++
  return { assertions: passed.size, failed }
}
