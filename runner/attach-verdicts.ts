// Verdict attachment: each matcher's verdicts (and span trees) go to the running test, as Vitest's
// task.meta or, under Jest, a per-test buffer the Jest entry flushes to the worker's verdict log.
import { scrubDeep } from '../src/config/secrets'
import type { TestVerdictMeta } from '../src/verdict/meta'
import { VERDICT_META_KEY } from '../src/verdict/meta-key'
import type { ReportTrace } from '../src/verdict/report'
import type { Verdict } from '../src/verdict/verdict'
import { annotateVerdicts, type AnnotatableTask } from './annotations'
import { onMatcherError } from './call-site'
import { checkReplayedEntries, labelRecordedEntries } from './cassette-labels'
import type { MatcherContext } from './context'
import { runnerHooks, testBufferKey, testNameOf, type TaskLike } from './runtime'

const buffered = new Map<string, TestVerdictMeta>()

/**
 * Where a trial's own verdicts and traces go while `withTrials` judges it: held, one group per attachment,
 * until the rule decides, then attached with the trials' one assertion (its `.not`, its outcome) by
 * {@link attachTrialVerdicts} — never as assertions of their own: a `.not` over trials judged `fail` would
 * otherwise count as k failed assertions.
 */
export const TRIAL_EVIDENCE = Symbol('agent-verdict.trial-evidence')
export type TrialEvidence = Array<{ verdicts: Verdict[]; traces?: ReportTrace[] }>

/**
 * Attaches verdicts (and traces, for trace matchers) to the running test: Vitest's
 * `task.meta[VERDICT_META_KEY]`, read by `agent-verdict/reporter`; under Jest a per-test buffer that
 * `agent-verdict/jest` flushes to the worker's verdict log after each test. With `assertion`, each
 * verdict records the assertion it was made for: the matcher, whether it was under `.not` (read from
 * `ctx.isNot === true`: Vitest leaves it `undefined` on positive assertions) and whether it passed —
 * so reports count a passing `.not` as a pass.
 *
 * @example
 * attachVerdicts(this, [verdict], undefined, { matcher: 'toBeCorrect', passed })
 */
export function attachVerdicts(
  ctx: MatcherContext,
  verdicts: Verdict[],
  traces?: ReportTrace[],
  assertion?: { matcher: string; passed: boolean },
): void {
  const evidence = (ctx as { [TRIAL_EVIDENCE]?: TrialEvidence })[TRIAL_EVIDENCE]
  if (evidence) {
    evidence.push({ verdicts, traces })
    return
  }
  attachGroups(ctx, [{ verdicts, traces }], assertion)
}

/**
 * An assertion on one verdict as the runner and the report see it: `pass` as the matcher returns it — for an
 * unjudgeable verdict `pass: isNot`, which fails in both directions (no verdict is never a pass, nor a "not") —
 * and whether the assertion passed.
 *
 * @example
 * const { pass, passed } = verdictAssertion(verdict, ctx.isNot === true)
 */
export function verdictAssertion(verdict: Verdict, isNot: boolean): { pass: boolean; passed: boolean } {
  const pass = verdict.outcome === 'unjudgeable' ? isNot : verdict.pass
  return { pass, passed: verdict.outcome !== 'unjudgeable' && pass !== isNot }
}

/**
 * Attaches a trials assertion: each trial's held verdicts and traces (as their matcher attached them, so span
 * ids stay one-to-one per trial), then the rule's summary verdict, all under the one assertion.
 *
 * @example
 * attachTrialVerdicts(this, evidence, summary, { matcher: 'toCompleteTask', passed })
 */
export function attachTrialVerdicts(
  ctx: MatcherContext,
  evidence: TrialEvidence,
  summary: Verdict,
  assertion: { matcher: string; passed: boolean },
): void {
  attachGroups(ctx, [...evidence, { verdicts: [summary] }], assertion)
}

// A matcher that threw gave no verdict: its assertion is recorded as failed, so the test is in every report.
onMatcherError((ctx, matcher) => attachGroups(ctx as MatcherContext, [], { matcher, passed: false }))

function attachGroups(
  ctx: MatcherContext,
  groups: TrialEvidence,
  assertion: { matcher: string; passed: boolean } | undefined,
): void {
  // Before anything is attached: a replayed entry whose verdict line disagrees with its output fails the test.
  checkReplayedEntries(groups[0]?.verdicts ?? [])
  const hooks = runnerHooks()
  const task = hooks?.runningTask?.() ?? ctx.task ?? hooks?.currentTask?.()
  const target = task ? metaOf(task) : bufferFor(ctx)
  const asserted = assertion
    ? {
        id: nextAssertionId(target, assertion.matcher),
        matcher: assertion.matcher,
        negated: ctx.isNot === true,
        passed: assertion.passed,
      }
    : undefined
  // Kept apart too: an assertion may produce no verdict at all (a clean trace) and must still be counted.
  if (asserted) (target.assertions ??= []).push(asserted)
  for (const group of groups) {
    // Scrubbed here, where secrets configured in code are known; the reporter process only knows env ones (0017).
    const verdicts = scrubDeep(group.verdicts)
    const traces = group.traces && scrubDeep(group.traces)
    const renamed = uniqueIds(target.verdicts, verdicts)
    target.verdicts.push(
      ...verdicts.map((v) => {
        const id = v.id && renamed.has(v.id) ? { id: renamed.get(v.id) } : {}
        return { ...v, ...id, ...(asserted ? { assertion: asserted } : {}) }
      }),
    )
    if (traces?.length) {
      const relinked =
        renamed.size === 0
          ? traces
          : traces.map((t) => ({
              ...t,
              spans: t.spans.map((sp) => ({ ...sp, verdictIds: sp.verdictIds.map((id) => renamed.get(id) ?? id) })),
            }))
      ;(target.traces ??= []).push(...relinked)
    }
    labelRecordedEntries(verdicts)
    // Vitest's own reporters (JUnit, github-actions, HTML, verbose) show them too (decision 0026).
    annotateVerdicts(task as AnnotatableTask | undefined, verdicts, traces)
  }
}

/** `toBeCorrect#2` for the second `toBeCorrect` assertion of a test: groups one assertion's verdicts. */
function nextAssertionId(target: TestVerdictMeta, matcher: string): string {
  const ids = new Set([
    ...(target.assertions ?? []).map((a) => a.id),
    ...target.verdicts.flatMap((v) => (v.assertion ? [v.assertion.id] : [])),
  ])
  let n = 1
  while (ids.has(`${matcher}#${n}`)) n++
  return `${matcher}#${n}`
}

/** Two assertions on one trace in one test give the same `spanId:metric` ids: suffix the later ones (`#2`…) so report links stay one-to-one. */
function uniqueIds(existing: readonly Verdict[], incoming: readonly Verdict[]): Map<string, string> {
  const taken = new Set(existing.map((v) => v.id).filter((id): id is string => id !== undefined))
  const renamed = new Map<string, string>()
  for (const v of incoming) {
    if (!v.id || !taken.has(v.id)) {
      if (v.id) taken.add(v.id)
      continue
    }
    let n = 2
    while (taken.has(`${v.id}#${n}`)) n++
    renamed.set(v.id, `${v.id}#${n}`)
    taken.add(`${v.id}#${n}`)
  }
  return renamed
}

function metaOf(task: TaskLike): TestVerdictMeta {
  const meta = task.meta as Record<string, TestVerdictMeta | undefined>
  return (meta[VERDICT_META_KEY] ??= { verdicts: [] })
}

function bufferFor(ctx: MatcherContext): TestVerdictMeta {
  const key = testBufferKey(ctx.testPath, testNameOf(ctx))
  let entry = buffered.get(key)
  if (!entry) buffered.set(key, (entry = { verdicts: [] }))
  return entry
}

/**
 * Removes and returns the buffered verdicts of one test (Jest's `afterEach`).
 *
 * @example
 * const meta = takeBufferedVerdicts(state.testPath, state.currentTestName)
 */
export function takeBufferedVerdicts(
  testPath: string | undefined,
  name: string | undefined,
): TestVerdictMeta | undefined {
  const key = testBufferKey(testPath, name)
  const entry = buffered.get(key)
  buffered.delete(key)
  return entry
}

/**
 * Removes and returns every buffered test of one file, as `[full name, verdicts]` (Jest's `afterAll`:
 * Jest runs no `afterEach` for `test.concurrent`, so their verdicts are still here when the file ends).
 *
 * @example
 * for (const [fullName, meta] of takeFileBufferedVerdicts(testPath)) appendVerdictLine({ testPath, fullName, ...meta })
 */
export function takeFileBufferedVerdicts(testPath: string): Array<[string, TestVerdictMeta]> {
  const prefix = testBufferKey(testPath, '')
  const taken: Array<[string, TestVerdictMeta]> = []
  for (const [key, entry] of buffered) {
    if (!key.startsWith(prefix)) continue
    buffered.delete(key)
    taken.push([key.slice(prefix.length), entry])
  }
  return taken
}
