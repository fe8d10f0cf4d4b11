// The fake judge counts usage with the same tokenizer the budgets use (o200k via js-tiktoken), so the
// bench's per-call prompt figures are real token counts, not the chars ÷ 4 estimate being checked.
import { loadO200k, type TextTokenCounter } from '../judges/tokenizer'

/** o200k_base token counter, loaded once when a fake judge starts (never at import). */
export function loadTokenCounter(): Promise<TextTokenCounter> {
  return loadO200k()
}
