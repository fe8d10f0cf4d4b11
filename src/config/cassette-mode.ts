// The cassette mode and update flag: the one parser of AGENT_VERDICT_MODE, CI and AGENT_VERDICT_UPDATE,
// used by cassettes (which throw CassetteModeError from it), judges (for messages) and reporters. Free of
// zod, so a setup entry can decide with it before loading anything heavy; the schemas derived from these
// modes are in cassette-mode-schema.ts.
import { type Env, isTruthyEnv, SettingError } from './env'

/** Env var naming the cassette mode. */
export const MODE_ENV = 'AGENT_VERDICT_MODE'
/** Env var asking for an update run (`vitest -u` sets it too). */
export const UPDATE_ENV = 'AGENT_VERDICT_UPDATE'

/**
 * How judge calls use cassettes:
 * - `auto`: replay hits, call the judge on misses and record them (the local default);
 * - `replay`: a miss fails the test (the default when `CI` is set);
 * - `record`: re-judge everything and overwrite;
 * - `live`: call the judge, no cassette files at all.
 *
 * @example
 * CASSETTE_MODES.includes('replay') // true
 */
export const CASSETTE_MODES = ['auto', 'replay', 'record', 'live'] as const
export type CassetteMode = (typeof CASSETTE_MODES)[number]

/**
 * The mode in force, and whether this is an update run (`vitest -u`, `AGENT_VERDICT_UPDATE=1`).
 *
 * @example
 * const settings: CassetteSettings = { mode: 'replay', update: true }
 */
export interface CassetteSettings {
  mode: CassetteMode
  /** Record misses even in replay mode (CI) and let the runner prune obsolete entries. */
  update: boolean
}

const MODE_HELP = [
  'auto (replay recorded verdicts, record misses; the local default)',
  'replay (recorded verdicts only, a miss fails; the default when CI is set)',
  'record (re-judge everything and overwrite)',
  'live (always call the judge, no cassette files)',
]

/**
 * Validates a mode name (case-insensitive); an invalid one throws a {@link SettingError} naming
 * `from` and listing the valid modes.
 *
 * @example
 * readCassetteMode('Replay') // 'replay'
 */
export function readCassetteMode(value: string, from: string = MODE_ENV): CassetteMode {
  const mode = value.trim().toLowerCase()
  if ((CASSETTE_MODES as readonly string[]).includes(mode)) return mode as CassetteMode
  throw new SettingError(
    `${from}=${JSON.stringify(value)} is not a cassette mode — use one of:\n  ${MODE_HELP.join('\n  ')}`,
    from,
  )
}

/**
 * The cassette settings from the environment: `AGENT_VERDICT_MODE` if set, else `replay` when `CI`
 * is truthy and `auto` otherwise; `update` from `AGENT_VERDICT_UPDATE`. An invalid mode throws a
 * {@link SettingError}.
 *
 * @example
 * readCassetteSettings({ CI: 'true' }) // { mode: 'replay', update: false }
 */
export function readCassetteSettings(env: Env = process.env): CassetteSettings {
  const raw = env[MODE_ENV]
  const mode = raw && raw.trim() ? readCassetteMode(raw) : isTruthyEnv(env.CI) ? 'replay' : 'auto'
  return { mode, update: isTruthyEnv(env[UPDATE_ENV]) }
}

/**
 * The mode for a report: as {@link readCassetteSettings} decides it, or `'invalid'` for a value
 * that is no mode (the run's tests already failed on it; the report must still be written).
 *
 * @example
 * cassetteModeForReport({ AGENT_VERDICT_MODE: 'sometimes' }) // 'invalid'
 */
export function cassetteModeForReport(env: Env = process.env): CassetteMode | 'invalid' {
  try {
    return readCassetteSettings(env).mode
  } catch (err) {
    if (err instanceof SettingError) return 'invalid'
    throw err
  }
}

/**
 * Why the environment selects replay mode (`AGENT_VERDICT_MODE=replay` or `CI` set), for messages;
 * `undefined` when it selects another mode (or no valid one).
 *
 * @example
 * replayCauseFromEnv({ CI: 'true' }) // 'CI'
 */
export function replayCauseFromEnv(env: Env = process.env): 'CI' | 'AGENT_VERDICT_MODE' | undefined {
  if (cassetteModeForReport(env) !== 'replay') return undefined
  return env[MODE_ENV]?.trim() ? 'AGENT_VERDICT_MODE' : 'CI'
}
