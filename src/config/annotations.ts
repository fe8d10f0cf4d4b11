// AGENT_VERDICT_ANNOTATIONS: which verdicts the Vitest entries turn into test annotations (decisions 0026, 0031).
import { type Env, SettingError } from './env'

/** Env var choosing which verdicts become Vitest annotations. */
export const ANNOTATIONS_ENV = 'AGENT_VERDICT_ANNOTATIONS'

/** Which verdicts become Vitest annotations: failing and unjudgeable ones (default), every one, or none. */
export type AnnotationMode = 'failures' | 'all' | 'off'

/**
 * `AGENT_VERDICT_ANNOTATIONS`: `failures` (the default) annotates failing and unjudgeable verdicts, `all` passing
 * ones too (`on`, `1`, `true` say the same), `off` none (`0`, `false`). Each annotation makes its test wait, before
 * it can end, for a round trip to Vitest's main process (a stack capture with source maps and an RPC): measured at
 * 4–20 ms a test under a concurrent eval file, which kept the judge idle between calls (decision 0031). A passing
 * verdict is worth that in a PR view only when asked for. An unknown value throws a {@link SettingError} naming
 * the valid ones.
 *
 * @example
 * annotationMode({ AGENT_VERDICT_ANNOTATIONS: 'all' }) // 'all'
 */
export function annotationMode(env: Env = process.env): AnnotationMode {
  const value = env[ANNOTATIONS_ENV]?.trim().toLowerCase()
  if (value === undefined || value === '' || value === 'failures') return 'failures'
  if (value === 'all' || value === 'on' || value === '1' || value === 'true') return 'all'
  if (value === 'off' || value === '0' || value === 'false') return 'off'
  throw new SettingError(
    `${ANNOTATIONS_ENV}="${env[ANNOTATIONS_ENV]}" is invalid: use failures (the default: failing and unjudgeable verdicts), all (passing ones too) or off`,
    ANNOTATIONS_ENV,
  )
}
