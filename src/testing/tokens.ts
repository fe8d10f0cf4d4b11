// The fake judge counts usage with the same tokenizer the budgets use (o200k via js-tiktoken), so the
// bench's per-call prompt figures are real token counts, not the chars ÷ 4 estimate being checked.
import { loadO200k, type TextTokenCounter } from '../judges/tokenizer'

/** Distinct texts whose counts a fake judge keeps: a suite's prompts, schemas and replies, many times over. */
const MEMO_SIZE = 4096

/** o200k_base token counter, loaded once when a fake judge starts (never at import), memoized. */
export async function loadTokenCounter(): Promise<TextTokenCounter> {
  return memoizedCounter(await loadO200k())
}

/**
 * `count` remembering the counts of the last `size` distinct texts. A fake judge shares one thread with
 * every request it serves: tokenizing the same system prompt and schema on each arrival (about 1 ms) would
 * hold back the requests queued behind it, which a real judge, tokenizing on its own machines, does not.
 *
 * @example
 * const count = memoizedCounter(await loadO200k())
 * count(prompt) // tokenized; the same prompt again is a map lookup
 */
export function memoizedCounter(count: TextTokenCounter, size = MEMO_SIZE): TextTokenCounter {
  const counts = new Map<string, number>()
  return (text) => {
    let n = counts.get(text)
    if (n === undefined) {
      n = count(text)
      // Oldest first out: a Map iterates in insertion order.
      if (counts.size >= size) counts.delete(counts.keys().next().value as string)
      counts.set(text, n)
    }
    return n
  }
}
