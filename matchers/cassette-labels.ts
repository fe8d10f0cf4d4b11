// Writes what a matcher concluded into the cassette entries its judge calls recorded, so a reviewer
// reads the test, the judged text and the verdict next to the raw reply.
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
