// What a judge call tells the code that reads its reply (src/judges/reply-body.ts): the size limit, and where to
// note what has arrived, so a timeout can say the judge was still sending. Registered per attempt, by signal.
import { DEFAULT_MAX_REPLY_BYTES } from '../config/reply-limits'

/** How much of a reply is read (a judge's `maxReplyBytes`), and where to say it is raised. */
export interface ReplyLimits {
  maxBytes: number
}

/** What has arrived of the reply in flight, for a timeout to say whether the judge was still sending. */
export interface ReplyProgress {
  /** The status line, once the headers are in. */
  status?: number
  /** Body bytes received so far, as sent (compressed, when it is). */
  bytes: number
  /** When the headers arrived (ms since epoch). */
  headersAt?: number
  /** When the last body byte arrived (ms since epoch). */
  lastByteAt?: number
}

/**
 * What a judge call hands its fetch beside the standard init (under {@link REPLY_WATCH}, passed by the OpenAI
 * SDK's `fetchOptions`): the reply's limits, and where to note its progress.
 */
export interface ReplyWatch {
  limits: ReplyLimits
  progress?: ReplyProgress
}

/** The fetch-init key of a {@link ReplyWatch}; any other fetch ignores it. */
export const REPLY_WATCH = 'agentVerdictReply'

const progressBySignal = new WeakMap<AbortSignal, ReplyProgress>()
const watchBySignal = new WeakMap<AbortSignal, ReplyWatch>()

/**
 * Ties a call's reply limits (and the attempt's progress) to the signal it is sent with, for a request handler
 * that sees only the signal (Bedrock's): `watchOfSignal` gives them back there.
 *
 * @example
 * watchSignal(signal, { limits, progress: replyProgressOf(signal) }); await client.send(command, { abortSignal: signal })
 */
export function watchSignal(signal: AbortSignal, watch: ReplyWatch): void {
  watchBySignal.set(signal, watch)
}

/** The reply watch registered for `signal` with {@link watchSignal}, if any. */
export function watchOfSignal(signal: unknown): ReplyWatch | undefined {
  return signal && typeof signal === 'object' ? watchBySignal.get(signal as AbortSignal) : undefined
}

/**
 * Ties an attempt's progress record to its signal, for the provider call made under that signal to fill in.
 *
 * @example
 * const progress = { bytes: 0 }; watchReplyProgress(controller.signal, progress)
 */
export function watchReplyProgress(signal: AbortSignal, progress: ReplyProgress): void {
  progressBySignal.set(signal, progress)
}

/** The progress record of the attempt running under `signal`, if the retry loop made one. */
export function replyProgressOf(signal: AbortSignal | undefined): ReplyProgress | undefined {
  return signal ? progressBySignal.get(signal) : undefined
}

const secs = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`

/**
 * What had arrived of a reply when the wait for it ended, in words: `undefined` before the headers (the
 * judge had not answered at all), else its status and the body bytes so far, so a drip reads as "still
 * sending", not as "no answer".
 *
 * @example
 * describeReplyProgress({ status: 200, bytes: 4, headersAt: t - 4400, lastByteAt: t - 400 }, t)
 * // 'it answered 200 and was still sending its reply: 4 bytes in 4.4 s, the last 0.4 s ago'
 */
export function describeReplyProgress(progress: ReplyProgress | undefined, now = Date.now()): string | undefined {
  if (progress?.status === undefined) return undefined
  const since = secs(now - (progress.headersAt ?? now))
  if (progress.bytes === 0) return `it answered ${progress.status} and then sent no byte of its reply in ${since}`
  const last = progress.lastByteAt === undefined ? '' : `, the last ${secs(now - progress.lastByteAt)} ago`
  return `it answered ${progress.status} and was still sending its reply: ${progress.bytes} byte${progress.bytes === 1 ? '' : 's'} in ${since}${last}`
}

/** The limits of a judge with `maxReplyBytes` (or the default). */
export function replyLimits(maxReplyBytes: number | undefined): ReplyLimits {
  return { maxBytes: maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES }
}
