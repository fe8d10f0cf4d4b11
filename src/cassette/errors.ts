import { relative, isAbsolute } from 'node:path'
import { JudgeConfigError } from '../judges/errors'

/** A cassette path for messages: relative to the working directory when it is inside it. */
export function displayPath(file: string): string {
  const rel = relative(process.cwd(), file)
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file
}

/**
 * Base of cassette file problems (corrupt or unreadable file, other version, lock not obtained, invalid
 * mode). Never retried, and never turned into an "unjudgeable" verdict: the judge is not at fault, so
 * matchers and `callJudge` throw it as it is and the message says what to do with the file.
 *
 * @example
 * if (err instanceof CassetteError) console.error(`cassette ${err.file}: ${err.message}`)
 */
export class CassetteError extends Error {
  override name = 'CassetteError'
  /** The cassette file concerned ('' for configuration errors). */
  readonly file: string
  /** Read by `callJudge`: an error of the cassette, not of the judge behind it. */
  readonly notFromJudge = true

  constructor(message: string, options: { file?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.file = options.file ?? ''
  }
}

/**
 * A cassette file is not valid JSON or not a valid cassette; the message names the file and says to
 * delete or fix it.
 *
 * @example
 * if (err instanceof CassetteFormatError) await rm(err.file) // re-record its verdicts next run
 */
export class CassetteFormatError extends CassetteError {
  override name = 'CassetteFormatError'
}

/**
 * The cassette lock could not be taken in time (another process holds it and is alive).
 *
 * @example
 * if (err instanceof CassetteLockError) console.error('another test run is writing this cassette')
 */
export class CassetteLockError extends CassetteError {
  override name = 'CassetteLockError'
}

/**
 * `AGENT_VERDICT_MODE` (or the `mode` option) is not a cassette mode; the message lists the valid ones.
 *
 * @example
 * if (err instanceof CassetteModeError) console.error(err.message) // …use one of: auto, replay, record, live
 */
export class CassetteModeError extends CassetteError {
  override name = 'CassetteModeError'
}

/** Why a cassette only replays: `CI` is set, `AGENT_VERDICT_MODE=replay`, or a `mode` option (CLI `--mode`). */
export type ReplayCause = 'CI' | 'AGENT_VERDICT_MODE' | 'option'

/** What to do about a miss, for the situation at hand: the judge is configured or not, and why replay is on. */
function howToRecord(judge: string | undefined, cause: ReplayCause | undefined, file: string): string {
  if (judge === undefined) return 'configure a judge (below) and run the tests locally to record it'
  if (cause === 'CI')
    return `CI is set, so verdicts are replayed only and the judge (${judge}) is not called: run the tests locally without CI to record it and commit ${file}, or set AGENT_VERDICT_MODE=record to judge it in this run`
  if (cause === 'AGENT_VERDICT_MODE')
    return `AGENT_VERDICT_MODE=replay replays recorded verdicts only and does not call the judge (${judge}): unset it (or set AGENT_VERDICT_MODE=record) to record it`
  return `the cassette mode is replay, which does not call the judge (${judge}): use mode auto or record to record it`
}

/**
 * Replay found no usable recorded verdict: none for this request (`reason: 'missing'`), or one that no
 * longer fits the request's output schema (`'stale'`). A configuration error, so never retried and
 * never an "unjudgeable" verdict: the test fails with how to record it.
 *
 * @example
 * if (err instanceof CassetteMissError) console.error(`${err.metric} not recorded in ${err.file}`)
 */
export class CassetteMissError extends JudgeConfigError {
  override name = 'CassetteMissError'
  readonly metric: string
  readonly file: string
  readonly key: string
  readonly reason: 'missing' | 'stale'

  /** The test and matcher that asked, when a matcher did. */
  readonly test?: string
  readonly matcher?: string

  constructor(options: {
    metric: string
    file: string
    key: string
    provider: string
    model: string
    reason: 'missing' | 'stale'
    detail?: string
    test?: string
    matcher?: string
    span?: string
    judge?: string
    replayBecause?: ReplayCause
  }) {
    const asked = [options.test && `test "${options.test}"`, options.matcher, options.span && `span ${options.span}`]
      .filter(Boolean)
      .join(' › ')
    const where = `${options.metric}${asked ? ` (${asked})` : ''} in ${displayPath(options.file)}`
    const how = howToRecord(options.judge, options.replayBecause, displayPath(options.file))
    const message =
      options.reason === 'missing'
        ? `no recorded verdict for ${where}${options.detail ? ` (${options.detail})` : ''} — ${how}`
        : `the recorded verdict for ${where} no longer fits its output schema (${options.detail ?? 'invalid'}) — ${how}`
    // With a judge configured, listing the AGENT_VERDICT_JUDGE forms would send the user the wrong way.
    super(message, { provider: options.provider, model: options.model, listForms: options.judge === undefined })
    this.metric = options.metric
    this.file = options.file
    this.key = options.key
    this.reason = options.reason
    if (options.test !== undefined) this.test = options.test
    if (options.matcher !== undefined) this.matcher = options.matcher
  }
}
