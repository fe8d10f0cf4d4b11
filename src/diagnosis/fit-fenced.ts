// Cutting judged text so that it still fits once its block escapes it (see metrics/prompts/fence.ts).
import { escapeFenced } from '../metrics/prompts/fence'
import { estimateTokens } from './tokens'

/** Tokens `text` takes inside a fenced block, escapes included. */
export function fencedTokens(text: string): number {
  return estimateTokens(escapeFenced(text))
}

/**
 * The longest rendering of a part whose escaped form fits `maxTokens`. `render(n)` cuts raw text to `n`
 * tokens (head+tail, message elision …); the block escapes what is left, so a cut never splits an
 * escape — but escaping can make hostile text longer (`＜task` becomes `&#xFF1C;task`), so the raw
 * budget is searched down until the escaped text fits. Text without tag-like sequences is rendered once.
 *
 * @example
 * fitFenced(1000, (n) => headTail(toolOutput, n)) // escapeFenced(result).length <= 4000
 */
export function fitFenced(maxTokens: number, render: (tokens: number) => string): string {
  const max = Math.max(0, Math.floor(maxTokens))
  const full = render(max)
  if (fencedTokens(full) <= max) return full
  // Binary search for the largest raw budget that fits; start from how much this text grows.
  let lo = 0
  let best = render(0)
  let hi = max
  let probe = Math.floor((max * full.length) / Math.max(1, escapeFenced(full).length))
  for (let step = 0; step < 24 && hi - lo > 1; step++) {
    const text = render(probe)
    if (fencedTokens(text) <= max) {
      lo = probe
      best = text
    } else hi = probe
    probe = Math.floor((lo + hi) / 2)
  }
  return best
}
