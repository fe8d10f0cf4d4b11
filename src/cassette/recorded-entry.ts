// What a recorded entry becomes: a re-recorded reply merged with the one on file, and a recorded failure replayed
// as the judge's error (decision 0043). Split from cassette-judge.ts, which records and replays.
import { JudgeOutputError } from '../judges/errors'
import type { Judge } from '../judges/types'
import { displayPath } from './errors'
import { canonicalJson } from './key'
import type { CassetteEntry } from './store'

/**
 * A re-recorded reply equal to the one on file keeps the old entry (its date, usage and cost), so
 * re-recording unchanged verdicts leaves the file byte for byte as it was; labels follow the test.
 */
export function keepUnchanged(old: CassetteEntry | undefined, fresh: CassetteEntry): CassetteEntry {
  const same =
    old !== undefined &&
    old.provider === fresh.provider &&
    old.model === fresh.model &&
    old.promptVersion === fresh.promptVersion &&
    canonicalJson(old.output) === canonicalJson(fresh.output)
  // Every project that used the entry keeps it (decision 0043), whichever recorded it last.
  const projects = [...new Set([...(old?.projects ?? []), ...(fresh.projects ?? [])])].sort()
  const owners = projects.length ? { projects } : {}
  if (!same || old.unjudgeable?.reason !== fresh.unjudgeable?.reason) return { ...fresh, ...owners }
  const { test, matcher, span } = fresh
  return {
    ...old,
    ...(test !== undefined ? { test } : {}),
    ...(matcher !== undefined ? { matcher } : {}),
    ...(span !== undefined ? { span } : {}),
    ...owners,
  }
}

/** Longest failure reason kept in an entry: enough to say why, never a whole reply. */
export const MAX_REASON_CHARS = 500

/** The failure an unjudgeable entry recorded, as the judge's error: the verdict replays as unjudgeable, no call made. */
export function replayedFailure(entry: CassetteEntry, file: string, judge: Judge): JudgeOutputError {
  const error = new JudgeOutputError(
    `${entry.unjudgeable?.reason ?? 'no valid verdict'} (replayed from ${displayPath(file)}: the judge gave no valid verdict for this request when it was recorded on ${entry.recordedAt}; a record or auto run — \`vitest -u\`, or AGENT_VERDICT_MODE=auto locally — asks it again)`,
    { provider: judge.provider, model: judge.model, raw: '', retryable: false, usage: { ...entry.usage } },
  )
  error.replayed = true
  return error
}
