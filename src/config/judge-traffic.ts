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
let unpatched: UnpatchedTransport | undefined

/**
 * Node's own request functions as they were before agent recordings patched them: a judge call sent with these
 * skips the recorder's interception (it would never record it anyway) and keeps the judge transport's keep-alive
 * agent and parked connections (decision 0033) in charge of its socket.
 */
export interface UnpatchedTransport {
  'http:': typeof import('node:http').request
  'https:': typeof import('node:https').request
  /** Node's fetch before the patch, when it was Node's own then. */
  fetch?: typeof globalThis.fetch
}

/**
 * Set by agent recordings while they patch `http.request` and `fetch`: `probe` answers whether that patch carries no
 * interceptor but ours, so judge calls may still leave from the run's coordinator (decision 0032), where recordings
 * never see them, or from this process on `natives`, Node's functions from before the patch.
 *
 * @example
 * setRecordingPatchProbe(() => othersListening() === 0, { 'http:': http.request, 'https:': https.request })
 */
export function setRecordingPatchProbe(probe: (() => boolean) | undefined, natives?: UnpatchedTransport): void {
  onlyOursProbe = probe
  unpatched = probe ? natives : undefined
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

/**
 * The request functions a judge call uses to go around agent recordings' patch: Node's own, when recordings are the
 * only interceptor; `undefined` otherwise (no patch, or a user's msw or nock that must see the judge's calls too).
 *
 * @example
 * const send = transportAroundRecordings()?.['https:'] ?? https.request
 */
export function transportAroundRecordings(): UnpatchedTransport | undefined {
  return unpatched && patchedOnlyByRecordings() ? unpatched : undefined
}
