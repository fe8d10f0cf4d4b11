// Verdicts as Vitest test annotations (`context.annotate`), so Vitest's own reporters — verbose, HTML,
// JUnit (`<property>`), `github-actions` (inline PR annotations) — show them with no agent-verdict
// reporter configured. Decision 0026.
import type { ReportTrace } from '../src/verdict/report'
import type { Verdict } from '../src/verdict/verdict'
import { formatScoreVsMin } from '../src/verdict/score'
import { terminalSafe } from '../src/verdict/safe-text'
import { oneLineExcerpt } from '../src/verdict/text'
import { annotationMode } from '../src/config/annotations'

export { annotationMode, type AnnotationMode } from '../src/config/annotations'

/** The part of a Vitest task the annotations need (structural, so no runner import). */
export interface AnnotatableTask {
  context?: { annotate?: (message: string, type?: string) => Promise<unknown> }
}

export interface VerdictAnnotation {
  message: string
  /** Vitest's built-in types: `error` (failing verdict), `warning` (unjudgeable), `notice` (passing). */
  type: 'error' | 'warning' | 'notice'
}

/** One annotation message stays readable in a PR view: the judge's reason is cut past this. */
const MAX_REASON = 500

const TYPE: Record<Verdict['outcome'], VerdictAnnotation['type']> = {
  pass: 'notice',
  fail: 'error',
  unjudgeable: 'warning',
}

type ReportSpan = ReportTrace['spans'][number]

/**
 * The spans of a matcher's traces by id, built once per traces list: a matcher's verdicts share the list, and a
 * search per verdict (over a fresh flat copy of every span) took 138 s to annotate the 1,333 failing spans of a
 * 100,000-span trace, 0.75 s with the index (bench: replay.trace_100k_ms). The first span with an id wins, as the
 * search did.
 */
const spanIndexes = new WeakMap<readonly ReportTrace[], Map<string, ReportSpan>>()

function spanIndex(traces: readonly ReportTrace[]): Map<string, ReportSpan> {
  let index = spanIndexes.get(traces)
  if (!index) {
    index = new Map()
    for (const t of traces) for (const s of t.spans) if (!index.has(s.id)) index.set(s.id, s)
    spanIndexes.set(traces, index)
  }
  return index
}

function spanLabel(spanId: string, traces: readonly ReportTrace[] | undefined): string {
  const span = traces ? spanIndex(traces).get(spanId) : undefined
  return terminalSafe(span ? `span ${span.kind}:${span.name} (id ${spanId})` : `span ${spanId}`)
}

/**
 * The annotation of one verdict: `agent-verdict faithfulness: fail (0/1, threshold 1) — <reason>`.
 *
 * @example
 * verdictAnnotation({ metric: 'faithfulness', outcome: 'fail', … }) // { type: 'error', message: 'agent-verdict faithfulness: fail …' }
 */
export function verdictAnnotation(verdict: Verdict, traces?: readonly ReportTrace[]): VerdictAnnotation {
  const where = verdict.level === 'span' && verdict.spanId ? ` · ${spanLabel(verdict.spanId, traces)}` : ''
  const category = verdict.category ? ` · ${verdict.category}` : ''
  if (verdict.outcome === 'unjudgeable') {
    return {
      type: 'warning',
      message: `agent-verdict ${verdict.metric}${where}: unjudgeable — ${terminalSafe(oneLineExcerpt(verdict.reason, MAX_REASON))}`,
    }
  }
  // A binary verdict's outcome says it all (and some, like budget, keep a count in `raw`, not a score).
  const figures = verdict.scale === 'binary' ? '' : ` (${formatScoreVsMin(verdict)})`
  return {
    type: TYPE[verdict.outcome],
    message: `agent-verdict ${verdict.metric}${where}: ${verdict.outcome}${figures}${category} — ${terminalSafe(oneLineExcerpt(verdict.reason, MAX_REASON))}`,
  }
}

/**
 * The annotations of one matcher call. Output- and agent-level verdicts get one each; of span-level
 * verdicts only the failing and unjudgeable ones do, the passing ones are counted in one notice (a
 * trace of 200 spans would otherwise flood the PR view, and GitHub shows only the first few per step).
 *
 * @example
 * verdictAnnotations(verdicts, traces).map((a) => a.type) // ['error', 'notice']
 */
export function verdictAnnotations(verdicts: readonly Verdict[], traces?: readonly ReportTrace[]): VerdictAnnotation[] {
  const out: VerdictAnnotation[] = []
  let passingSpans = 0
  for (const v of verdicts) {
    if (v.level === 'span' && v.outcome === 'pass') passingSpans++
    else out.push(verdictAnnotation(v, traces))
  }
  if (passingSpans > 0)
    out.push({
      type: 'notice',
      message: `agent-verdict: ${passingSpans} span verdict${passingSpans === 1 ? '' : 's'} passed`,
    })
  return out
}

/**
 * True unless `AGENT_VERDICT_ANNOTATIONS` switches annotations off (see {@link annotationMode}).
 *
 * @example
 * annotationsEnabled({ AGENT_VERDICT_ANNOTATIONS: 'off' }) // false
 */
export function annotationsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return annotationMode(env) !== 'off'
}

/**
 * Records the verdicts on the running Vitest test through `context.annotate`: the failing and unjudgeable ones,
 * or every one with `AGENT_VERDICT_ANNOTATIONS=all` (see {@link annotationMode}). Vitest takes the
 * location from the call stack (the awaited `expect(…)` line of the test file) and waits for the
 * annotations before it ends the test. Does nothing outside Vitest or when the test already ended
 * (an un-awaited matcher settling after its test): the verdicts are on `task.meta` either way.
 *
 * @example
 * annotateVerdicts(task, [verdict])
 */
export function annotateVerdicts(
  task: AnnotatableTask | undefined,
  verdicts: readonly Verdict[],
  traces?: readonly ReportTrace[],
  env: NodeJS.ProcessEnv = process.env,
): void {
  const mode = annotationMode(env)
  if (mode === 'off') return
  const annotate = task?.context?.annotate
  if (typeof annotate !== 'function') return
  const annotated = mode === 'all' ? verdicts : verdicts.filter((v) => v.outcome !== 'pass')
  if (annotated.length === 0) return
  for (const { message, type } of verdictAnnotations(annotated, traces)) {
    try {
      // Vitest records the promise on the test and awaits it; nothing is left dangling.
      void annotate(message, type).catch(() => {})
    } catch {
      // "Cannot annotate tests outside of the test run": the test is over, the verdict is still in task.meta.
      return
    }
  }
}
