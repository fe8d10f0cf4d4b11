import * as z from 'zod'

/** The TRAIL splits, named as the official folders and the `--json` keys name them. */
export const TrailSplitSchema = z.enum(['GAIA', 'SWE_Bench'])
export type TrailSplit = z.infer<typeof TrailSplitSchema>

/** `--split` values: one split or both. */
export const SplitOptionSchema = z.enum(['gaia', 'swe', 'both'])
export type SplitOption = z.infer<typeof SplitOptionSchema>

/** Where each split lives under a TRAIL folder: traces and gold annotations. */
export const TRAIL_SPLIT_DIRS: Record<TrailSplit, { traces: string; gold: string }> = {
  GAIA: { traces: 'GAIA', gold: 'annotations_gaia' },
  SWE_Bench: { traces: 'SWE_Bench', gold: 'annotations_swe_bench' },
}

/**
 * The splits a `--split` value selects (default both).
 *
 * @example
 * splitsOf('swe') // ['SWE_Bench']
 */
export function splitsOf(option: SplitOption = 'both'): TrailSplit[] {
  return option === 'gaia' ? ['GAIA'] : option === 'swe' ? ['SWE_Bench'] : ['GAIA', 'SWE_Bench']
}

/** Guess a split from a folder name (`annotations_swe_bench`, `SWE_Bench`, `outputs_x-GAIA` …). */
export function splitFromName(name: string): TrailSplit | undefined {
  const n = name.toLowerCase()
  if (n.includes('swe')) return 'SWE_Bench'
  if (n.includes('gaia')) return 'GAIA'
  return undefined
}
