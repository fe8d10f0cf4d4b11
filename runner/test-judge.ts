// Judge resolution for a matcher call: the per-call judge or AGENT_VERDICT_JUDGE, wrapped with the test
// file's cassette and the running test's deadline; and the end-of-file cassette flush and prune.
import { withCassette, type CassetteJudge } from '../src/cassette/cassette-judge'
import { resolveCassetteSettings } from '../src/cassette/modes'
import { cassettePathFor, readCassette, updateCassette } from '../src/cassette/store'
import { resolveJudge } from '../src/judges/config'
import { withTestDeadline } from '../src/judges/deadline'
import type { Judge } from '../src/judges/types'
import type { MatcherContext } from './context'
import { runnerHooks } from './runtime'

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
  const obsolete = Object.keys((await readCassette(file)).entries)
    .filter((k) => !used.has(k))
    .sort()
  if (obsolete.length === 0) return []
  await updateCassette(file, (c) => {
    for (const key of obsolete) delete c.entries[key]
  })
  return obsolete
}
