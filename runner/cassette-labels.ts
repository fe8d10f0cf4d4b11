// Writes what a matcher concluded into the cassette entries its judge calls recorded, so a reviewer
// reads the test, the judged text and the verdict next to the raw reply.
import { CassetteError, displayPath } from '../src/cassette/errors'
import { currentCassetteScope } from '../src/cassette/scope'
import type { CassetteVerdict } from '../src/cassette/store'
import { oneLineExcerpt } from '../src/verdict/text'
import type { Verdict } from '../src/verdict/verdict'

const EXCERPT_CHARS = 120

/** Up to 3 decimals, no trailing zeros: `4`, `3.5`, `0.667`. */
const num = (n: number) => String(Number(n.toFixed(3)))

/**
 * A verdict on its metric's own scale: `4/5` with `min 4`, `0/1` with `min 1`, a label (an error
 * category) as the judge gave it, a ratio with its minimum.
 *
 * @example
 * cassetteVerdict(verdict) // { metric: 'correctness', outcome: 'fail', score: '2/5', threshold: 'min 4', reason: '…' }
 */
export function cassetteVerdict(v: Verdict): CassetteVerdict {
  let score: string | null = null
  let threshold: string | null = null
  if (v.scale === 'likert5') {
    score = typeof v.raw === 'number' ? `${v.raw}/5` : v.raw === null ? null : String(v.raw)
    threshold = `min ${num(1 + 4 * v.threshold)}`
  } else if (v.scale === 'ratio') {
    score = v.score === null ? null : num(v.score)
    threshold = `min ${num(v.threshold)}`
  } else if (typeof v.raw === 'number') {
    score = `${v.raw}/1`
    threshold = `min ${num(v.threshold)}`
  } else {
    // A label (an error category) or a yes/no: shown as the judge said it.
    score = v.raw === null ? null : typeof v.raw === 'boolean' ? (v.raw ? 'yes' : 'no') : v.raw
  }
  return { metric: v.metric, outcome: v.outcome, score, threshold, reason: v.reason }
}

/**
 * Labels the entries recorded by the running matcher call with its verdicts: a span call's entry gets
 * that span's verdicts, any other entry the output and agent verdicts. Nothing happens outside a
 * matcher call or when nothing was recorded (replay never writes).
 *
 * @example
 * labelRecordedEntries([verdict])
 */
export function labelRecordedEntries(verdicts: readonly Verdict[]): void {
  const scope = currentCassetteScope()
  if (!scope || scope.recorded.length === 0) return
  for (const call of scope.recorded.splice(0)) {
    const own = verdicts.filter((v) =>
      call.spanId === undefined ? v.level !== 'span' : v.level === 'span' && v.spanId === call.spanId,
    )
    if (own.length === 0) continue
    const subject = own.find((v) => v.subject !== undefined)?.subject
    // Labels are for review only: a failed write must not fail the test, but must not pass unseen either.
    call
      .annotate({
        verdicts: own.map(cassetteVerdict),
        ...(subject !== undefined ? { judged: oneLineExcerpt(subject, EXCERPT_CHARS) } : {}),
      })
      .catch((error: unknown) => {
        console.warn(
          `agent-verdict: could not label cassette entry ${call.key.slice(0, 12)}: ${error instanceof Error ? error.message : String(error)}`,
        )
      })
  }
}

/**
 * Checks the entries the running matcher call replayed against the verdicts it made of them again: the verdict
 * line a reviewer reads must say what the recorded output says. Per metric, the scores must be the same and,
 * where the threshold is the same, the outcomes too (a changed threshold in the test legitimately changes an
 * outcome; a verdict now unjudgeable — e.g. split samples — is not compared). Editing only `output.score` in a
 * cassette would otherwise flip a test in CI while its `verdicts` line still says fail: that entry is refused
 * with a `CassetteError` naming it. Call with the verdicts labelled entries would get (the first group's).
 *
 * @example
 * checkReplayedEntries(verdicts) // throws CassetteError: … says fail 0/1, but its output reads pass 1/1 …
 */
export function checkReplayedEntries(verdicts: readonly Verdict[]): void {
  const scope = currentCassetteScope()
  if (!scope || scope.replayed.length === 0) return
  for (const call of scope.replayed.splice(0)) {
    const own = verdicts.filter((v) =>
      call.spanId === undefined ? v.level !== 'span' : v.level === 'span' && v.spanId === call.spanId,
    )
    const mismatch = firstMismatch(call.verdicts, own.map(cassetteVerdict))
    if (mismatch)
      throw new CassetteError(
        `cassette ${displayPath(call.file)}: the entry ${call.where} says ${mismatch.recorded}, but its recorded output reads ${mismatch.now} — the output or its verdict line was edited, so it is not replayed. Re-record it: run the tests locally with \`vitest -u\` (or AGENT_VERDICT_MODE=record) and review the diff`,
        { file: call.file },
      )
  }
}

const shown = (v: CassetteVerdict) => `${v.metric} ${v.outcome}${v.score === null ? '' : ` ${v.score}`}`

function firstMismatch(
  recorded: readonly CassetteVerdict[],
  now: readonly CassetteVerdict[],
): { recorded: string; now: string } | undefined {
  const byScore = (a: CassetteVerdict, b: CassetteVerdict) => String(a.score).localeCompare(String(b.score))
  for (const metric of new Set(now.map((v) => v.metric))) {
    const mine = now.filter((v) => v.metric === metric).sort(byScore)
    const theirs = recorded.filter((v) => v.metric === metric).sort(byScore)
    // Not labelled for this metric (another matcher wrote the line), or no verdict now: nothing to compare.
    if (theirs.length === 0 || mine.some((v) => v.outcome === 'unjudgeable')) continue
    const list = (vs: CassetteVerdict[]) => vs.map(shown).join(', ')
    if (mine.length !== theirs.length) return { recorded: list(theirs), now: list(mine) }
    for (let i = 0; i < mine.length; i++) {
      const [a, b] = [theirs[i], mine[i]]
      if (a.score !== b.score || (a.threshold === b.threshold && a.outcome !== b.outcome))
        return { recorded: shown(a), now: shown(b) }
    }
  }
  return undefined
}
