// Real token counts for prompt budgets: o200k (js-tiktoken, loaded on first use — its ranks are 2.3 MB,
// never paid at setup-file import) for OpenAI-family judges; for Claude the provider's own count when the
// judge offers one (Bedrock CountTokens), else o200k with a safety margin.
import type { Judge } from './types'

/** Counts the tokens of a text (one string, no message framing). */
export type TextTokenCounter = (text: string) => number

let o200k: Promise<TextTokenCounter> | undefined

/**
 * The o200k_base tokenizer (gpt-4o, gpt-4.1, o-series), loaded once on first call.
 *
 * @example
 * const count = await loadO200k()
 * count('hello world') // 2
 */
export function loadO200k(): Promise<TextTokenCounter> {
  o200k ??= (async () => {
    const [{ Tiktoken }, ranks] = await Promise.all([
      import('js-tiktoken/lite'),
      import('js-tiktoken/ranks/o200k_base'),
    ])
    const encoder = new Tiktoken((ranks as { default: ConstructorParameters<typeof Tiktoken>[0] }).default)
    // Special-token text in judged data is counted as plain text, never rejected.
    return (text: string) => countInPieces((piece) => encoder.encode(piece, [], []).length, text)
  })()
  return o200k
}

/**
 * Claude's tokenizer is not public; o200k undercounts it on code, JSON and non-English text. Measured
 * guidance puts Claude at up to ~20% more tokens than o200k, so budgets multiply o200k by this when the
 * provider cannot count for us.
 */
export const CLAUDE_O200K_MARGIN = 1.25

/** A judge that can count a prompt's tokens itself (Bedrock's CountTokens API). */
export interface TokenCountingJudge extends Judge {
  /** Input tokens of `system` + `user` as the model would bill them; undefined when the API is unavailable. */
  countTokens(system: string, user: string, signal?: AbortSignal): Promise<number | undefined>
}

/** Counts a whole prompt side: system text and user text (schema and framing are added by the caller). */
export type PromptTokenCounter = (system: string, user: string) => Promise<number>

function isClaude(judge: Judge | undefined): boolean {
  return /claude|anthropic/i.test(`${judge?.provider ?? ''}:${judge?.model ?? ''}`)
}

/** Whether `judge` counts itself (Bedrock CountTokens). */
function nativeCounter(judge: Judge | undefined): TokenCountingJudge | undefined {
  return judge && typeof (judge as Partial<TokenCountingJudge>).countTokens === 'function'
    ? (judge as TokenCountingJudge)
    : undefined
}

/**
 * A sound upper bound on what `promptTokenCounter(judge)` returns for `system` + `user`, with no tokenizer
 * loaded: the UTF-8 byte count, since every o200k token stands for at least one byte (byte-level BPE, and
 * special-token text is counted as plain text), times `CLAUDE_O200K_MARGIN` where the counter applies it.
 * A judge's own counter (Bedrock CountTokens for Claude) is bounded the same way: a byte-level tokenizer
 * never has more tokens than bytes, and the margin's quarter of the bytes covers the few framing tokens the
 * API adds (the system prompt alone is thousands of bytes). `fitToTokens` counts only prompts over this.
 *
 * @example
 * const bound = promptTokenBound(judge)
 * bound('sys', 'hello world') >= (await promptTokenCounter(judge))('sys', 'hello world') // true
 */
export function promptTokenBound(judge: Judge | undefined): (system: string, user: string) => number {
  const margin = isClaude(judge) || nativeCounter(judge) ? CLAUDE_O200K_MARGIN : 1
  return (system, user) => Math.ceil((Buffer.byteLength(system, 'utf8') + Buffer.byteLength(user, 'utf8')) * margin)
}

/**
 * How prompt budgets are counted for `judge`: its own `countTokens` when it has one and it answers,
 * else o200k — times `CLAUDE_O200K_MARGIN` for Claude models.
 *
 * @example
 * const count = await promptTokenCounter(judge)
 * await count(SYSTEM, userText) // 1234
 */
export async function promptTokenCounter(judge: Judge | undefined): Promise<PromptTokenCounter> {
  const count = await loadO200k()
  const margin = isClaude(judge) ? CLAUDE_O200K_MARGIN : 1
  const local = (system: string, user: string) => Math.ceil((count(system) + count(user)) * margin)
  const native = nativeCounter(judge)
  if (!native) return async (system, user) => local(system, user)
  let unavailable = false
  return async (system, user) => {
    if (unavailable) return local(system, user)
    try {
      const n = await native.countTokens(system, user)
      if (n !== undefined) return n
    } catch {
      // Not available in this region / for this model / no permission: the stated fallback.
    }
    unavailable = true
    return local(system, user)
  }
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
