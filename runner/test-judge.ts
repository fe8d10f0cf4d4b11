// Judge resolution for a matcher call: the per-call judge or AGENT_VERDICT_JUDGE, wrapped with the test
// file's cassette and the running test's deadline; and the end-of-file cassette flush and prune.
import { existsSync } from 'node:fs'
import { withCassette, type CassetteJudge } from '../src/cassette/cassette-judge'
import { displayPath } from '../src/cassette/errors'
import { currentCassetteScope, runInCassetteScope } from '../src/cassette/scope'
import { resolveCassetteSettings } from '../src/cassette/modes'
import { settleEntries, staleKeys, staleNotice, type FileRun } from '../src/cassette/stale'
import { cassettePathFor, readCassette, updateCassette, type CassetteEntry } from '../src/cassette/store'
import { resolveJudge } from '../src/judges/config'
import { withTestDeadline } from '../src/judges/deadline'
import type { Judge } from '../src/judges/types'
import type { MatcherContext } from './context'
import { runnerHooks, testNameOf } from './runtime'

// One cassette-wrapped judge per (test file, judge).
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
  return withTestDeadline(cassetteJudgeFor(ctx, resolveJudge(explicit)), runnerHooks()?.testTimeLimit?.(ctx))
}

function cassetteJudgeFor(ctx: MatcherContext, judge: Judge): Judge {
  const testPath = ctx.testPath
  if (!testPath) return judge // outside a test file there is nowhere to keep a cassette
  let perFile = judgesByFile.get(testPath)
  if (!perFile) judgesByFile.set(testPath, (perFile = new Map()))
  let wrapped = perFile.get(judge)
  if (!wrapped) {
    const update = runnerHooks()?.isUpdate() === true || resolveCassetteSettings().update
    const project = runnerHooks()?.project?.()
    wrapped = withCassette(judge, { file: cassettePathFor(testPath), update, ...(project ? { project } : {}) })
    perFile.set(judge, wrapped)
  }
  return wrapped
}

/**
 * The judge of a programmatic call (`evaluateCorrectness`, `diagnose`, …) made inside a test: the same cassette,
 * mode and deadline as a matcher's, with entries labelled by the test and `label`. Inside a matcher call (which has
 * its cassette already) the judge is returned as it is.
 *
 * @example
 * setRunnerJudge(async (judge, label) => apiJudgeFor(expect.getState(), judge, label))
 */
export function apiJudgeFor(ctx: MatcherContext, judge: Judge, label: string): Judge {
  if (currentCassetteScope()) return judge
  const wrapped = judgeFor(ctx, judge)
  if (wrapped === judge) return judge
  const labels = { test: testNameOf(ctx), attempt: runnerHooks()?.attemptOf?.(ctx), matcher: label }
  return {
    ...wrapped,
    evaluate: (request, signal) => runInCassetteScope(labels, () => wrapped.evaluate(request, signal)),
  }
}

/** The cassette of a test file that made no judge call in this run, when it has one and the mode keeps files. */
async function unusedCassette(testPath: string): Promise<{ file: string; update: boolean } | undefined> {
  const file = cassettePathFor(testPath)
  if (!existsSync(file)) return undefined
  try {
    const settings = resolveCassetteSettings()
    if (settings.mode === 'live') return undefined
    return { file, update: runnerHooks()?.isUpdate() === true || settings.update }
  } catch {
    // An invalid mode is reported by the first judge call; a file that made none is not failed for it here.
    return undefined
  }
}

/** What {@link finishFile} is told about the file's run. */
export interface FileEnd {
  /** Every test of the file ran and passed. */
  complete: boolean
  /** Which tests ran and passed, and which the file declares (decision 0043); without it, only a complete file prunes. */
  run?: FileRun
  /** Where the stale-entries notice goes (default `console.warn`). */
  warn?: (message: string) => void
}

/**
 * End of a test file: waits for cassette writes; then, in a named Vitest project that may record, labels the entries
 * it used with the project; on an update run (`-u`), prunes the stale entries (those of tests that ran and passed and
 * no longer use them, see `staleKeys`); on any other run, says how many stale entries the cassette holds and how to
 * prune them. Returns the pruned keys.
 *
 * @example
 * afterAll(() => finishFile(expect.getState().testPath!, { complete: true }))
 */
export async function finishFile(testPath: string, options: FileEnd): Promise<string[]> {
  const perFile = judgesByFile.get(testPath)
  judgesByFile.delete(testPath)
  const cassettes = [...(perFile?.values() ?? [])]
  await Promise.all(cassettes.map((c) => c.flush()))
  // Several judges may share one file (their keys differ by model): an entry is obsolete only when none used it.
  const live = cassettes.filter((c) => c.mode !== 'live')
  // A file whose tests made no judge call in this run may still hold entries they no longer need.
  const unused = cassettes.length === 0 ? await unusedCassette(testPath) : undefined
  if (live.length === 0 && !unused) return []
  const file = unused?.file ?? live[0].file
  const project = runnerHooks()?.project?.()
  const update = unused?.update ?? live.some((c) => c.update)
  const mayWrite = update || live.some((c) => c.mode === 'auto' || c.mode === 'record')
  const used = new Set(live.flatMap((c) => [...c.usedKeys]))
  const run: FileRun = options.run ?? {
    passed: new Set(),
    declared: new Set(),
    allRan: false,
    complete: options.complete,
  }
  // A file that made no judge call is not failed here for a cassette it did not read (a judge call reports it).
  const read = readCassette(file)
  const { entries } = unused ? await read.catch(() => ({ entries: {} as Record<string, CassetteEntry> })) : await read
  const stale = staleKeys(entries, used, run, project)
  const unclaimed =
    project !== undefined && mayWrite && [...used].some((k) => entries[k] && !entries[k].projects?.includes(project))
  if (!update && stale.length > 0)
    (options.warn ?? console.warn)(staleNotice(displayPath(file), entries, stale, runnerHooks()?.runner))
  if (!(update && stale.length > 0) && !unclaimed) return []
  let removed: string[] = []
  await updateCassette(file, (c) => {
    removed = settleEntries(c, { used, prune: update ? stale : [], ...(project !== undefined ? { project } : {}) })
  })
  return removed
}
