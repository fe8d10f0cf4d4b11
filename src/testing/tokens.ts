// The fake judge counts usage with the same tokenizer the budgets use (o200k via js-tiktoken), so the
// bench's per-call prompt figures are real token counts, not the chars ÷ 4 estimate being checked.
let loaded: Promise<(text: string) => number> | undefined

/** o200k_base token counter, loaded once when a fake judge starts (never at import). */
export function loadTokenCounter(): Promise<(text: string) => number> {
  loaded ??= (async () => {
    const [{ Tiktoken }, ranks] = await Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')])
    const encoder = new Tiktoken((ranks as { default: ConstructorParameters<typeof Tiktoken>[0] }).default)
    return (text: string) => countInPieces((piece) => encoder.encode(piece, [], []).length, text)
  })()
  return loaded
}

/** Longest piece encoded at once: js-tiktoken's BPE is quadratic in a pre-token's length (1,000 emoji
 * take 3.5 s whole, 64 take milliseconds). */
const PIECE_CHARS = 1_000
/** Piece length inside a run with no whitespace to cut at (64 emoji encode in ~2 ms). */
const RUN_CHARS = 64

/** Token count of `text` encoded in pieces of at most PIECE_CHARS, cut before whitespace where there is
 * some (where the tokenizer would split anyway), else hard (never inside a surrogate pair). A cut can only
 * stop merges across it, so the sum is never below the whole-text count by more than rounding: safe for budgets. */
function countInPieces(encode: (text: string) => number, text: string): number {
  let total = 0
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + PIECE_CHARS)
    if (end < text.length) {
      const window = text.slice(start, end)
      const ws = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\n'))
      if (ws > PIECE_CHARS / 2) end = start + ws
      else {
        // A long run without whitespace (emoji, symbols) is one pre-token: cut it small.
        end = Math.min(text.length, start + RUN_CHARS)
        const code = text.charCodeAt(end)
        if (code >= 0xdc00 && code <= 0xdfff) end--
      }
    }
    total += encode(text.slice(start, end))
    start = end
  }
  return total
}
