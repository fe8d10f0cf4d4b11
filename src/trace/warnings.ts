import { describeTimeProblems, timeProblems } from './time-sanity'
import type { Trace } from './trace'

/** Orphans are listed one by one up to this many; beyond it one summary says how many more. */
const MAX_ORPHAN_WARNINGS = 50

/**
 * Adds the warnings that need the whole tree: orphans (parent id not in the trace), one aggregated
 * warning for llm/tool spans without input or output, and one for spans with implausible or reversed
 * times (`timeProblems`: outside 2000-01-01 … now + 1 day as ns epochs, e.g. ms written as ns; or end < start).
 *
 * @example
 * addTreeWarnings(trace)
 * trace.warnings.filter((w) => w.code === 'orphan')
 */
export function addTreeWarnings(trace: Trace): void {
  let orphans = 0
  for (const root of trace.roots) {
    if (root.parentId === null) continue
    orphans++
    if (orphans <= MAX_ORPHAN_WARNINGS) {
      trace.warnings.push({
        code: 'orphan',
        spanId: root.id,
        message: `span ${root.id} (${root.name}) has parent ${root.parentId}, which is not in the trace; treated as a root (was the trace exported in parts?)`,
      })
    }
  }
  if (orphans > MAX_ORPHAN_WARNINGS) {
    trace.warnings.push({
      code: 'orphan',
      message: `${orphans - MAX_ORPHAN_WARNINGS} more orphan spans not listed (${orphans} in all)`,
    })
  }

  const times = timeProblems(trace.spans)
  if (times.length > 0) {
    trace.warnings.push({
      code: 'implausible-time',
      spanId: times[0].spanId,
      message: `${times.length} of ${trace.size} spans have implausible times: ${describeTimeProblems(times)}; wall times and latency budgets on this trace are unjudgeable (times are not corrected)`,
    })
  }

  let leaves = 0
  let count = 0
  const listed: string[] = []
  let firstId: string | undefined
  for (let i = 0; i < trace.spans.length; i++) {
    const span = trace.spans[i]
    if (span.kind !== 'llm' && span.kind !== 'tool') continue
    leaves++
    const noIn = span.input === undefined
    const noOut = span.output === undefined
    if (!noIn && !noOut) continue
    count++
    firstId ??= span.id
    if (listed.length < 5)
      listed.push(
        `${span.id} (${span.kind}:${span.name}, no ${noIn && noOut ? 'input or output' : noIn ? 'input' : 'output'})`,
      )
  }
  if (count > 0) {
    const more = count > listed.length ? `, and ${count - listed.length} more` : ''
    trace.warnings.push({
      code: 'missing-io',
      spanId: firstId,
      message: `${count} of ${leaves} llm/tool spans have no input or output: ${listed.join(', ')}${more}; judges see less of those spans`,
    })
  }
}
