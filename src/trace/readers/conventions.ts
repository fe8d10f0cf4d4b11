import type { Span } from '../span'
import type { ReadContext } from './context'
import { applyGenAi, hasGenAi } from './genai'
import { applyOpenInference, hasOpenInferenceKeys } from './openinference-attributes'

/**
 * Maps a span's attributes with whichever convention it follows: OpenInference (Phoenix, Arize,
 * smolagents), else GenAI semantic conventions, else nothing (kind `other`).
 *
 * @example
 * applyConventions(span, new ReadContext()) // sets span.kind, model, tokens, input/output, toolName …
 */
export function applyConventions(span: Span, ctx: ReadContext): void {
  const attrs = span.attributes
  if (attrs['openinference.span.kind'] !== undefined) applyOpenInference(span, ctx)
  else if (hasGenAi(span)) applyGenAi(span, ctx)
  else if (hasOpenInferenceKeys(attrs)) applyOpenInference(span, ctx)
}
