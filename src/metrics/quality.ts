import * as z from 'zod'
import { MetricImageSchema, type MetricDefinition } from './metric'
import { QualityOutputSchema, type QualityOutput } from './output-schemas'
import { PROMPT_VERSION, SYSTEM, renderUser } from './prompts/quality'

export const QualityInputSchema = z.object({
  output: z.string(),
  /** The task (instruction or question) the output answers. */
  instruction: z.string().optional(),
  reference: z.string().optional(),
  context: z.string().optional(),
  image: MetricImageSchema.optional(),
})
export type QualityInput = z.infer<typeof QualityInputSchema>

/**
 * Overall Quality (1–5, multi-aspect: visual accuracy, instruction adherence, completeness,
 * coherence). Default pass: 4 or more, i.e. a normalized threshold of 0.75.
 *
 * @example
 * await runMetric(qualityMetric, { output, instruction: 'Describe the trend.', image: 'wau.png' }, { judge })
 */
export const qualityMetric: MetricDefinition<QualityInput, QualityOutput> = {
  name: 'quality',
  title: 'Overall quality',
  promptVersion: PROMPT_VERSION,
  scale: 'likert5',
  defaultThreshold: 0.75,
  schemaName: 'quality_verdict',
  schema: QualityOutputSchema,
  inputSchema: QualityInputSchema,
  imageOf: (input) => input.image,
  prompt: (input, hasImage) => ({
    system: SYSTEM,
    text: renderUser({ ...input, hasImage }),
  }),
}

/**
 * A 1–5 minimum as a normalized threshold: `min: 4` → 0.75.
 *
 * @example
 * likertMinToThreshold(4) // 0.75
 */
export function likertMinToThreshold(min: number): number {
  if (!Number.isFinite(min) || min < 1 || min > 5) {
    throw new RangeError(`min must be a score on the 1–5 scale (got ${String(min)}): e.g. { min: 4 } passes 4 and 5`)
  }
  return (min - 1) / 4
}
