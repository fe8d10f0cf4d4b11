// Parsing of the judge options of `agent-verdict diagnose`: --select, --policy, --budget.
import { MIN_BUDGET_TOKENS, type PropagationPolicy } from '../diagnosis/types'
import { TRAIL_CATEGORIES } from '../taxonomy'
import { SpanKindSchema, type SpanKind } from '../trace/span'
import type { SpanQuery } from '../trace/trace'

/** A bad option value; the message says what is accepted. */
export class OptionError extends Error {}

/**
 * `--select llm,tool` → `{ kind: ['llm', 'tool'] }`; `--select none` → `{ kind: [] }` (no span judged,
 * the agent-level pass only).
 *
 * @example
 * parseSelect('llm,tool') // { kind: ['llm', 'tool'] }
 */
export function parseSelect(value: string): SpanQuery {
  // No span judged: only the agent-level metrics run (the detectors always do).
  if (value.trim().toLowerCase() === 'none') return { kind: [] }
  const kinds = value
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter(Boolean)
  const bad = kinds.filter((k) => !SpanKindSchema.safeParse(k).success)
  if (kinds.length === 0 || bad.length > 0) {
    throw new OptionError(
      `--select takes span kinds separated by commas (${SpanKindSchema.options.join(', ')}), or none for the agent-level metrics only, not "${value}"`,
    )
  }
  return { kind: kinds as SpanKind[] }
}

/**
 * `--policy existential | threshold:0.3 | category:Rate Limiting,Service Errors` (category names are
 * matched case-insensitively).
 *
 * @example
 * parsePolicy('threshold:0.3') // { type: 'threshold', threshold: 0.3 }
 */
export function parsePolicy(value: string): PropagationPolicy {
  const text = value.trim()
  if (text === 'existential') return 'existential'
  const colon = text.indexOf(':')
  const type = colon < 0 ? text : text.slice(0, colon)
  const arg = colon < 0 ? '' : text.slice(colon + 1).trim()
  if (type === 'threshold') {
    const t = Number(arg)
    if (arg === '' || !Number.isFinite(t) || t < 0 || t >= 1)
      throw new OptionError(`--policy threshold:T needs a share 0 ≤ T < 1, e.g. threshold:0.3 (got "${value}")`)
    return { type: 'threshold', threshold: t }
  }
  if (type === 'category') {
    const names = arg
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean)
    const categories = names.map((n) => TRAIL_CATEGORIES.find((c) => c.toLowerCase() === n.toLowerCase()))
    const unknown = names.filter((_, i) => categories[i] === undefined)
    if (names.length === 0 || unknown.length > 0) {
      throw new OptionError(
        `--policy category:A,B needs TRAIL categories (${unknown.length ? `unknown: ${unknown.join(', ')}; ` : ''}e.g. category:Rate Limiting,Service Errors)`,
      )
    }
    return { type: 'category', categories: categories as Array<(typeof TRAIL_CATEGORIES)[number]> }
  }
  throw new OptionError(`--policy must be existential, threshold:T or category:A,B, not "${value}"`)
}

/**
 * `--budget 16000` → 16000 (tokens per judge call, at least the minimum the prompts need).
 *
 * @example
 * parseBudget('8000') // 8000
 */
export function parseBudget(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < MIN_BUDGET_TOKENS)
    throw new OptionError(`--budget must be a whole number of tokens ≥ ${MIN_BUDGET_TOKENS}, not "${value}"`)
  return n
}
