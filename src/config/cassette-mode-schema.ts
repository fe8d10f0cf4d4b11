// The cassette settings as zod schemas, derived from the one list of modes in cassette-mode.ts.
import * as z from 'zod'
import { CASSETTE_MODES, type CassetteMode, type CassetteSettings } from './cassette-mode'

/**
 * A cassette mode (see {@link CASSETTE_MODES}).
 *
 * @example
 * CassetteModeSchema.parse('replay') // 'replay'
 */
export const CassetteModeSchema: z.ZodType<CassetteMode> = z.enum(CASSETTE_MODES)

/**
 * The mode in force and the update flag (see {@link CassetteSettings}).
 *
 * @example
 * CassetteSettingsSchema.parse({ mode: 'replay', update: true })
 */
export const CassetteSettingsSchema: z.ZodType<CassetteSettings> = z.object({
  mode: CassetteModeSchema,
  /** Record misses even in replay mode (CI) and let the runner prune obsolete entries. */
  update: z.boolean(),
})
