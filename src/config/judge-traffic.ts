// Which HTTP requests are the judge's own: they are verdicts (kept in the verdict cassette), never agent calls to
// record. A leaf both layers may import: src/judges marks its calls here, src/recording asks here. Marked by the
// async context the call runs in, not by host name, so a judge and an agent on the same local server stay apart.
import { AsyncLocalStorage } from 'node:async_hooks'

const judgeTraffic = new AsyncLocalStorage<true>()

/**
 * Runs `fn` with every request it starts marked as the judge's own: agent recordings let them through untouched.
 *
 * @example
 * return asJudgeTraffic(() => client.chat.completions.create(body))
 */
export function asJudgeTraffic<T>(fn: () => T): T {
  return judgeTraffic.getStore() ? fn() : judgeTraffic.run(true, fn)
}

/**
 * True inside {@link asJudgeTraffic}: the request being made is a judge call.
 *
 * @example
 * if (isJudgeTraffic()) return // a verdict, not an agent call
 */
export function isJudgeTraffic(): boolean {
  return judgeTraffic.getStore() === true
}

let onlyOursProbe: (() => boolean) | undefined

/**
 * Set by agent recordings while they patch `http.request`: answers whether that patch carries no interceptor but
 * ours, so judge calls may still leave from the run's coordinator (decision 0032), where recordings never see them.
 *
 * @example
 * setRecordingPatchProbe(() => othersListening() === 0)
 */
export function setRecordingPatchProbe(probe: (() => boolean) | undefined): void {
  onlyOursProbe = probe
}

/**
 * True when `http.request` is patched by agent recordings alone (no msw, nock or user interceptor listening).
 *
 * @example
 * if (patchedOnlyByRecordings()) return false // not intercepted by anything that mocks the judge
 */
export function patchedOnlyByRecordings(): boolean {
  return onlyOursProbe?.() === true
}
