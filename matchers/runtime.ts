import { withCassette, type CassetteJudge } from '../src/cassette/cassette-judge'
import { resolveCassetteSettings } from '../src/cassette/modes'
import { runInCassetteScope } from '../src/cassette/scope'
import { cassettePathFor, readCassette, updateCassette } from '../src/cassette/store'
import { resolveJudge } from '../src/judges/config'
import { withTestDeadline, type TestTimeLimit } from '../src/judges/deadline'
import { scrubDeep } from '../src/config/secrets'
import type { Judge } from '../src/judges/types'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../src/verdict/meta'
import type { ReportTrace } from '../src/verdict/report'
import type { Verdict } from '../src/verdict/verdict'
import { annotateVerdicts, type AnnotatableTask } from './annotations'
import { labelRecordedEntries } from './cassette-labels'
import type { MatcherContext, MatcherResult } from './context'

type TaskLike = NonNullable<MatcherContext['task']>

/** What a runner entry (`agent-verdict/vitest`, `agent-verdict/jest`) plugs into the shared runtime. */
export interface RunnerHooks {
  runner: 'vitest' | 'jest'
  /** True for `vitest -u` / `jest -u`: record misses even in CI, prune obsolete entries. */
  isUpdate(): boolean
  /** The test whose async context the call runs in (an AsyncLocalStorage the entry binds when a test starts); wins over `this.task`, which the global `expect` of concurrent tests gets wrong. */
  runningTask?(): TaskLike | undefined
  /** The running test when the matcher context has none (Vitest's `getCurrentTest`). */
  currentTask?(): TaskLike | undefined
  /** The running test's start and timeout, so judge calls end before it (decision 0017). */
  testTimeLimit?(ctx: MatcherContext): TestTimeLimit | undefined
}

let hooks: RunnerHooks | undefined

/**
 * Called once by a runner entry. Without it (matchers registered by hand) verdicts still go to
 * `this.task.meta` in Vitest or to the per-test buffer, and update runs come from `AGENT_VERDICT_UPDATE`.
 *
 * @example
 * configureRuntime({ runner: 'vitest', isUpdate: () => false })
 */
export function configureRuntime(next: RunnerHooks): void {
  hooks = next
}

// --- judges: one cassette-wrapped judge per (test file, judge) ---

const judgesByFile = new Map<string, Map<Judge, CassetteJudge>>()

/**
 * The judge a matcher uses: the per-call `judge` option or `AGENT_VERDICT_JUDGE`, wrapped with the
 * test file's cassette (`__verdicts__/<test file>.json` beside it) and cached for the file. Throws
 * JudgeConfigError when no judge is configured.
 *
 * @example
 * const judge = judgeFor(this, options.judge)
 */
export function judgeFor(ctx: MatcherContext, explicit?: Judge): Judge {
  // Per call: the cassette judge is shared by the file, the deadline belongs to the running test.
  return withTestDeadline(cassetteJudgeFor(ctx, resolveJudge(explicit)), hooks?.testTimeLimit?.(ctx))
}

function cassetteJudgeFor(ctx: MatcherContext, judge: Judge): Judge {
  const testPath = ctx.testPath
  if (!testPath) return judge // outside a test file there is nowhere to keep a cassette
  let perFile = judgesByFile.get(testPath)
  if (!perFile) judgesByFile.set(testPath, (perFile = new Map()))
  let wrapped = perFile.get(judge)
  if (!wrapped) {
    const update = hooks?.isUpdate() === true || resolveCassetteSettings().update
    wrapped = withCassette(judge, { file: cassettePathFor(testPath), update })
    perFile.set(judge, wrapped)
  }
  return wrapped
}

/**
 * End of a test file: waits for cassette writes and, on an update run where every test of the file
 * ran and passed, prunes entries no test used. Returns the pruned keys.
 *
 * @example
 * afterAll(() => finishFile(expect.getState().testPath!, { complete: true }))
 */
export async function finishFile(testPath: string, options: { complete: boolean }): Promise<string[]> {
  const perFile = judgesByFile.get(testPath)
  judgesByFile.delete(testPath)
  if (!perFile) return []
  const cassettes = [...perFile.values()]
  await Promise.all(cassettes.map((c) => c.flush()))
  if (!options.complete) return []
  // Several judges may share one file (their keys differ by model): an entry is obsolete only when none used it.
  const live = cassettes.filter((c) => c.mode !== 'live')
  if (live.length === 0 || !live.some((c) => c.update)) return []
  const file = live[0].file
  const used = new Set(live.flatMap((c) => [...c.usedKeys]))
  const obsolete = Object.keys((await readCassette(file)).entries).filter((k) => !used.has(k)).sort()
  if (obsolete.length === 0) return []
  await updateCassette(file, (c) => {
    for (const key of obsolete) delete c.entries[key]
  })
  return obsolete
}

// --- verdicts: to task.meta (Vitest) or a per-test buffer (Jest) ---

const buffered = new Map<string, TestVerdictMeta>()

const bufferKey = (testPath: string | undefined, name: string | undefined) => `${testPath ?? ''}\u0000${name ?? ''}`

type TestIdentity = Pick<MatcherContext, 'task' | 'testPath' | 'currentTestName' | 'currentConcurrentTestName' | 'currentTestIdentity'>

/** The running test's full name; Jest's concurrent tests only know it through `currentConcurrentTestName`. */
export function testNameOf(ctx: TestIdentity): string | undefined {
  return ctx.currentConcurrentTestName?.() ?? ctx.currentTestName
}

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
export function attachVerdicts(ctx: MatcherContext, verdicts: Verdict[], traces?: ReportTrace[], assertion?: { matcher: string; passed: boolean }): void {
  // Scrubbed here, where secrets configured in code are known; the reporter process only knows env ones (0017).
  verdicts = scrubDeep(verdicts)
  traces = traces && scrubDeep(traces)
  const task = hooks?.runningTask?.() ?? ctx.task ?? hooks?.currentTask?.()
  const target = task ? metaOf(task) : bufferFor(ctx)
  const renamed = uniqueIds(target.verdicts, verdicts)
  const asserted = assertion ? { id: nextAssertionId(target, assertion.matcher), matcher: assertion.matcher, negated: ctx.isNot === true, passed: assertion.passed } : undefined
  // Kept apart too: an assertion may produce no verdict at all (a clean trace) and must still be counted.
  if (asserted) (target.assertions ??= []).push(asserted)
  target.verdicts.push(
    ...verdicts.map((v) => {
      const id = v.id && renamed.has(v.id) ? { id: renamed.get(v.id) } : {}
      return { ...v, ...id, ...(asserted ? { assertion: asserted } : {}) }
    }),
  )
  if (traces?.length) {
    const relinked = renamed.size === 0 ? traces : traces.map((t) => ({ ...t, spans: t.spans.map((sp) => ({ ...sp, verdictIds: sp.verdictIds.map((id) => renamed.get(id) ?? id) })) }))
    ;(target.traces ??= []).push(...relinked)
  }
  labelRecordedEntries(verdicts)
  // Vitest's own reporters (JUnit, github-actions, HTML, verbose) show them too (decision 0026).
  annotateVerdicts(task as AnnotatableTask | undefined, verdicts, traces)
}

/** `toBeCorrect#2` for the second `toBeCorrect` assertion of a test: groups one assertion's verdicts. */
function nextAssertionId(target: TestVerdictMeta, matcher: string): string {
  const ids = new Set([...(target.assertions ?? []).map((a) => a.id), ...target.verdicts.flatMap((v) => (v.assertion ? [v.assertion.id] : []))])
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
  const key = bufferKey(ctx.testPath, testNameOf(ctx))
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
export function takeBufferedVerdicts(testPath: string | undefined, name: string | undefined): TestVerdictMeta | undefined {
  const key = bufferKey(testPath, name)
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
  const prefix = bufferKey(testPath, '')
  const taken: Array<[string, TestVerdictMeta]> = []
  for (const [key, entry] of buffered) {
    if (!key.startsWith(prefix)) continue
    buffered.delete(key)
    taken.push([key.slice(prefix.length), entry])
  }
  return taken
}

// --- the un-awaited guard ---

interface TrackedCall {
  name: string
  /** Set when the test finished first: nobody awaits this call any more. */
  abandoned: boolean
  /** The failure it would have reported, kept for the guard's message. */
  failure?: string
}

/** An un-awaited matcher call found after its test returned, and what it would have failed with. */
export interface UnawaitedCall {
  name: string
  failure?: string
}

const pending = new Map<unknown, Map<Promise<unknown>, TrackedCall>>()

/** Which test a matcher call belongs to: the task object in Vitest, the test identity (or path + name) in Jest. */
export function testKeyOf(ctx: TestIdentity): unknown {
  return hooks?.runningTask?.() ?? ctx.task ?? hooks?.currentTask?.() ?? ctx.currentTestIdentity?.() ?? bufferKey(ctx.testPath, testNameOf(ctx))
}

/**
 * Runs a matcher call and remembers it until it settles, so the runner entry can tell one the test
 * forgot to await. A call that outlives its test answers "pass" for its polarity instead of
 * failing: nobody could catch that rejection any more (Jest would crash on it), so the guard reports
 * the failure on the test instead.
 *
 * @example
 * return track(this, 'toBeCorrect', () => evaluate())
 */
export function track<T extends MatcherResult>(ctx: MatcherContext, name: string, start: () => Promise<T>): Promise<T> {
  const key = testKeyOf(ctx)
  const call: TrackedCall = { name, abandoned: false }
  const neutral = (result: T | undefined): T => ({ ...(result as T), pass: ctx.isNot !== true, message: result?.message ?? (() => '') })
  let calls = pending.get(key)
  if (!calls) pending.set(key, (calls = new Map()))
  const entry = calls
  let promise: Promise<T> | undefined
  let settled = false
  const forget = () => {
    settled = true
    if (promise) entry.delete(promise)
    if (entry.size === 0 && pending.get(key) === entry) pending.delete(key)
  }
  // Judge calls inside know their test and matcher: cassette entries are named by them.
  // Awaited, and no second `.then` on the returned promise: V8's async stack then reaches the test's
  // `expect(…)` line, where Vitest places the verdict's annotation (decision 0026).
  const settle = async (): Promise<T> => {
    try {
      let result: T
      try {
        result = await runInCassetteScope({ test: testNameOf(ctx), matcher: ctx.isNot ? `not.${name}` : name }, start)
      } catch (error: unknown) {
        if (!call.abandoned) throw error
        call.failure = error instanceof Error ? error.message : String(error)
        return neutral(undefined)
      }
      if (!call.abandoned) return result
      if (result.pass === (ctx.isNot === true)) call.failure = result.message()
      return neutral(result)
    } finally {
      forget()
    }
  }
  promise = settle()
  if (!settled) entry.set(promise, call)
  return promise
}

/**
 * Called after a test body returned (the runner's `afterEach`): matcher calls of that test still
 * pending were not awaited. Marks them abandoned, waits for them (so their verdicts are attached and
 * no call dangles) and returns them with the failure each would have reported; an empty list means
 * every call was awaited.
 *
 * @example
 * const calls = await settleUnawaited(task); if (calls.length) throw new Error(notAwaitedMessage(calls))
 */
export async function settleUnawaited(key: unknown): Promise<UnawaitedCall[]> {
  const calls = pending.get(key)
  pending.delete(key)
  if (!calls || calls.size === 0) return []
  const tracked = [...calls.values()]
  for (const call of tracked) call.abandoned = true
  await Promise.allSettled([...calls.keys()])
  return tracked.map(({ name, failure }) => (failure === undefined ? { name } : { name, failure }))
}
