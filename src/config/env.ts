// How every agent-verdict setting reads the environment: one truthiness rule, one positive-integer
// rule, and the error every setting parser throws (the judges and cassette layers turn it into their
// own public error classes, which sit above this leaf).

/** The environment as the parsers read it (`process.env` by default). */
export type Env = Record<string, string | undefined>

/**
 * A setting that cannot be used as given. `setting` names it (`AGENT_VERDICT_JUDGE`, `--mode`);
 * the message says what to write instead and never repeats a credential.
 *
 * @example
 * try { readCassetteMode('sometimes') } catch (err) { if (err instanceof SettingError) console.error(err.setting) }
 */
export class SettingError extends Error {
  override name = 'SettingError'
  constructor(
    message: string,
    readonly setting: string,
  ) {
    super(message)
  }
}

/**
 * True for a set environment flag: anything but empty, `0`, `false`, `no` or `off`.
 *
 * @example
 * isTruthyEnv('true') // true; isTruthyEnv('0') // false; isTruthyEnv(undefined) // false
 */
export function isTruthyEnv(value: string | undefined): boolean {
  return value !== undefined && !['', '0', 'false', 'no', 'off'].includes(value.trim().toLowerCase())
}

/**
 * A positive integer from an env var, `undefined` when unset or blank; a bad value throws saying what to set.
 *
 * @example
 * parsePositive('8', 'AGENT_VERDICT_CONCURRENCY') // 8
 * parsePositive('0', 'AGENT_VERDICT_CONCURRENCY') // throws RangeError: …must be a positive integer (e.g. AGENT_VERDICT_CONCURRENCY=8), or unset
 */
export function parsePositive(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1)
    throw new RangeError(`${name}="${raw}" must be a positive integer (e.g. ${name}=8), or unset`)
  return n
}
