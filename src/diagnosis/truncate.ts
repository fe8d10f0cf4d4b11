import { CHARS_PER_TOKEN, estimateTokens } from './tokens'

/** Share of a head+tail cut kept from the head: openings state the intent, endings the outcome. */
const HEAD_SHARE = 0.6

function elisionMarker(cutChars: number): string {
  return `\n[… ${cutChars} chars (~${Math.ceil(cutChars / CHARS_PER_TOKEN)} tokens) elided …]\n`
}

/** Index moved off the low half of a surrogate pair, so a cut never splits a character. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at)
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at
}

/**
 * `text` cut to at most `maxTokens` (estimated) by keeping its head and tail and replacing the middle
 * with a marker saying how much was cut. Text that fits is returned unchanged.
 *
 * @example
 * headTail('a'.repeat(100_000), 1000).length <= 4000 // true, and it says "[… 96… chars (~24… tokens) elided …]"
 */
export function headTail(text: string, maxTokens: number): string {
  const maxChars = Math.max(0, Math.floor(maxTokens)) * CHARS_PER_TOKEN
  if (text.length <= maxChars) return text
  const marker = elisionMarker(text.length)
  const keep = maxChars - marker.length
  if (keep <= 0) return maxChars >= 3 ? '[…]'.slice(0, maxChars) : ''
  const head = safeCut(text, Math.ceil(keep * HEAD_SHARE))
  const tailStart = safeCut(text, text.length - (keep - head))
  return `${text.slice(0, head)}${elisionMarker(tailStart - head)}${text.slice(tailStart)}`
}

/** One part of a prompt competing for the budget: how much it wants and its weight when budget is short. */
export interface BudgetClaim {
  /** Tokens the part would take uncut. */
  wants: number
  weight: number
}

/**
 * Shares `total` tokens among claims by water-filling: each part gets what it wants if that is below
 * its weighted share, and what small parts leave is shared among the others by weight. Integer results,
 * summing to at most `total`.
 *
 * @example
 * allocate(1000, [{ wants: 100, weight: 1 }, { wants: 5000, weight: 1 }]) // [100, 900]
 */
export function allocate(total: number, claims: readonly BudgetClaim[]): number[] {
  const out = claims.map(() => 0)
  let remaining = Math.max(0, Math.floor(total))
  let open = claims.map((_, i) => i).filter((i) => claims[i].wants > 0)
  while (open.length > 0 && remaining > 0) {
    const weights = open.reduce((n, i) => n + claims[i].weight, 0)
    const satisfied = open.filter((i) => claims[i].wants - out[i] <= (remaining * claims[i].weight) / weights)
    if (satisfied.length === 0) {
      for (const i of open) out[i] += Math.floor((remaining * claims[i].weight) / weights)
      break
    }
    for (const i of satisfied) {
      remaining -= claims[i].wants - out[i]
      out[i] = claims[i].wants
    }
    open = open.filter((i) => !satisfied.includes(i))
  }
  return out
}

/**
 * Tokens of a list of rendered blocks joined by `separator`.
 *
 * @example
 * joinedTokens(['a', 'b'], '\n') // 1
 */
export function joinedTokens(blocks: readonly string[], separator: string): number {
  return estimateTokens(blocks.join(separator))
}
