// Whether a trace's times can be trusted for a wall time. A millisecond epoch written into a `*UnixNano` field
// reads as 1970 plus a few seconds, so a 40 s run measured "0 ms"; reversed start and end measured a negative
// time. Such times are reported, never corrected: guessing the unit could turn one wrong number into another.

/** 2000-01-01T00:00:00Z in ns: no span of an agent run started before it. */
const EARLIEST_NS = 946_684_800_000_000_000n
/** Slack after "now" for clocks of other machines (and time zones written as UTC). */
const FUTURE_SLACK_NS = 86_400_000_000_000n

const UNITS: ReadonlyArray<[bigint, string]> = [
  [1_000n, 'microseconds'],
  [1_000_000n, 'milliseconds'],
  [1_000_000_000n, 'seconds'],
]

/** A span whose times cannot be trusted, and why, for warnings and budget messages. */
export interface TimeProblem {
  spanId: string
  kind: 'out-of-range' | 'reversed'
  message: string
}

/** The fields of a span this check reads. */
interface TimedSpan {
  id: string
  name: string
  startNs: bigint
  endNs: bigint
}

/**
 * The spans whose times are implausible, by a fixed rule: every start and end must lie between 2000-01-01
 * and a day after `nowMs` as nanoseconds since the epoch (a value that does lie there once multiplied by
 * 1e3, 1e6 or 1e9 is named as the unit it looks like: µs, ms or s written where ns belong), and no span may
 * end before it starts. A wall time over such spans means nothing, so a latency budget on them is
 * unjudgeable rather than a pass.
 *
 * @example
 * timeProblems(trace.spans).map((p) => p.message)
 * // ['span 4a1f… (search) starts at 1700000000000 ns (1970-01-01T00:28:20.000Z): looks like milliseconds written as nanoseconds']
 */
export function timeProblems(spans: readonly TimedSpan[], nowMs: number = Date.now()): TimeProblem[] {
  const latest = BigInt(Math.trunc(nowMs)) * 1_000_000n + FUTURE_SLACK_NS
  const problems: TimeProblem[] = []
  for (const span of spans) {
    const who = `span ${span.id} (${span.name})`
    const start = outOfRange(span.startNs, latest)
    const end = outOfRange(span.endNs, latest)
    if (start || end) {
      const parts = [start && `starts at ${start}`, end && `ends at ${end}`].filter(Boolean)
      problems.push({ spanId: span.id, kind: 'out-of-range', message: `${who} ${parts.join(' and ')}` })
    } else if (span.endNs < span.startNs) {
      problems.push({
        spanId: span.id,
        kind: 'reversed',
        message: `${who} ends ${formatNs(span.startNs - span.endNs)} before it starts (start and end swapped?)`,
      })
    }
  }
  return problems
}

/** Why `ns` is no plausible epoch time, or undefined when it is. */
function outOfRange(ns: bigint, latest: bigint): string | undefined {
  if (ns >= EARLIEST_NS && ns <= latest) return undefined
  const shown = `${ns} ns (${isoOf(ns)})`
  if (ns > latest) return `${shown}: later than a day from now`
  if (ns === 0n) return `${shown}: no time recorded`
  for (const [factor, unit] of UNITS) {
    const scaled = ns * factor
    if (scaled >= EARLIEST_NS && scaled <= latest) return `${shown}: looks like ${unit} written as nanoseconds`
  }
  return `${shown}: before 2000`
}

function isoOf(ns: bigint): string {
  const ms = Number(ns / 1_000_000n)
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : 'out of range'
}

function formatNs(ns: bigint): string {
  const ms = Number(ns) / 1e6
  return ms >= 1 ? `${Math.round(ms).toLocaleString('en-US')} ms` : `${ns} ns`
}

/**
 * One line for a list of problems: the first few, then how many more.
 *
 * @example
 * describeTimeProblems(timeProblems(trace.spans))
 */
export function describeTimeProblems(problems: readonly TimeProblem[], max = 3): string {
  const shown = problems.slice(0, max).map((p) => p.message)
  const more = problems.length > max ? `; and ${problems.length - max} more` : ''
  return `${shown.join('; ')}${more}`
}
