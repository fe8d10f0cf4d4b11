// The cassette mode as cassettes use it: src/config parses it (one parser, shared with judges and
// reporters); here a bad value becomes the CassetteModeError that cassette callers catch.
import {
  type CassetteMode,
  type CassetteSettings,
  readCassetteMode,
  readCassetteSettings,
} from '../config/cassette-mode'
import { SettingError } from '../config/env'
import { CassetteModeError } from './errors'

export { replayCauseFromEnv, type CassetteMode, type CassetteSettings } from '../config/cassette-mode'
export { CassetteModeSchema, CassetteSettingsSchema } from '../config/cassette-mode-schema'
export { isTruthyEnv } from '../config/env'

/**
 * Validates a mode name (case-insensitive); an invalid one throws a {@link CassetteModeError} listing
 * the valid modes.
 *
 * @example
 * parseCassetteMode('Replay') // 'replay'
 */
export function parseCassetteMode(value: string, from = 'AGENT_VERDICT_MODE'): CassetteMode {
  return asCassetteModeError(() => readCassetteMode(value, from))
}

/**
 * The cassette settings from the environment: `AGENT_VERDICT_MODE` if set, else `replay` when `CI`
 * is truthy and `auto` otherwise; `update` from `AGENT_VERDICT_UPDATE` (the Vitest integration also
 * sets it for `vitest -u`). An invalid mode throws a {@link CassetteModeError}.
 *
 * @example
 * resolveCassetteSettings({ CI: 'true' }) // { mode: 'replay', update: false }
 */
export function resolveCassetteSettings(env: Record<string, string | undefined> = process.env): CassetteSettings {
  return asCassetteModeError(() => readCassetteSettings(env))
}

function asCassetteModeError<T>(parse: () => T): T {
  try {
    return parse()
  } catch (err) {
    if (err instanceof SettingError) throw new CassetteModeError(err.message)
    throw err
  }
}
