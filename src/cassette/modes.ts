import { z } from 'zod'
import { CassetteModeError } from './errors'

/**
 * How judge calls use cassettes:
 * - `auto`: replay hits, call the judge on misses and record them (the local default);
 * - `replay`: a miss fails the test (the default when `CI` is set);
 * - `record`: re-judge everything and overwrite;
 * - `live`: call the judge, no cassette files at all.
 *
 * @example
 * CassetteModeSchema.parse('replay') // 'replay'
 */
export const CassetteModeSchema = z.enum(['auto', 'replay', 'record', 'live'])
export type CassetteMode = z.infer<typeof CassetteModeSchema>

/**
 * The mode in force, and whether this is an update run (`vitest -u`, `AGENT_VERDICT_UPDATE=1`).
 *
 * @example
 * const settings: CassetteSettings = { mode: 'replay', update: true }
 */
export const CassetteSettingsSchema = z.object({
  mode: CassetteModeSchema,
  /** Record misses even in replay mode (CI) and let the runner prune obsolete entries. */
  update: z.boolean(),
})
export type CassetteSettings = z.infer<typeof CassetteSettingsSchema>

const MODE_HELP = [
  'auto (replay recorded verdicts, record misses; the local default)',
  'replay (recorded verdicts only, a miss fails; the default when CI is set)',
  'record (re-judge everything and overwrite)',
  'live (always call the judge, no cassette files)',
]

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
 * Validates a mode name (case-insensitive); an invalid one throws a {@link CassetteModeError} listing
 * the valid modes.
 *
 * @example
 * parseCassetteMode('Replay') // 'replay'
 */
export function parseCassetteMode(value: string, from = 'AGENT_VERDICT_MODE'): CassetteMode {
  const parsed = CassetteModeSchema.safeParse(value.trim().toLowerCase())
  if (parsed.success) return parsed.data
  throw new CassetteModeError(`${from}=${JSON.stringify(value)} is not a cassette mode — use one of:\n  ${MODE_HELP.join('\n  ')}`)
}

/**
 * Why the environment selects replay mode (`AGENT_VERDICT_MODE=replay` or `CI` set), for messages;
 * `undefined` when it selects another mode.
 *
 * @example
 * replayCauseFromEnv({ CI: 'true' }) // 'CI'
 */
export function replayCauseFromEnv(env: Record<string, string | undefined> = process.env): 'CI' | 'AGENT_VERDICT_MODE' | undefined {
  if (resolveCassetteSettings(env).mode !== 'replay') return undefined
  return env.AGENT_VERDICT_MODE?.trim() ? 'AGENT_VERDICT_MODE' : 'CI'
}

/**
 * The cassette settings from the environment: `AGENT_VERDICT_MODE` if set, else `replay` when `CI`
 * is truthy and `auto` otherwise; `update` from `AGENT_VERDICT_UPDATE` (the Vitest integration also
 * sets it for `vitest -u`).
 *
 * @example
 * resolveCassetteSettings({ CI: 'true' }) // { mode: 'replay', update: false }
 */
export function resolveCassetteSettings(env: Record<string, string | undefined> = process.env): CassetteSettings {
  const raw = env.AGENT_VERDICT_MODE
  const mode = raw && raw.trim() ? parseCassetteMode(raw) : isTruthyEnv(env.CI) ? 'replay' : 'auto'
  return { mode, update: isTruthyEnv(env.AGENT_VERDICT_UPDATE) }
}
