import * as z from 'zod'
import { MetricImageSchema, type MetricDefinition } from './metric'
import { BinaryOutputSchema, type BinaryOutput } from './output-schemas'
import { PROMPT_VERSION, SYSTEM_WITH_REFERENCE, SYSTEM_WITHOUT_REFERENCE, renderUser } from './prompts/correctness'

export const CorrectnessInputSchema = z.object({
  output: z.string(),
  /** The question or instruction the output answers. */
  input: z.string().optional(),
  /** Expected answer; without it the output is judged against the input and the image. */
  reference: z.string().optional(),
  image: MetricImageSchema.optional(),
})
export type CorrectnessInput = z.infer<typeof CorrectnessInputSchema>

/**
 * Correctness (binary): reference-based when `reference` is given, reference-free otherwise (then
 * judged against the question and, when given, the image the judge sees itself).
 *
 * @example
 * await runMetric(correctnessMetric, { output: '$14.10', input: 'Top region revenue?', image: 'chart.png' }, { judge })
 */
export const correctnessMetric: MetricDefinition<CorrectnessInput, BinaryOutput> = {
  name: 'correctness',
  title: 'Correctness',
  promptVersion: PROMPT_VERSION,
  scale: 'binary',
  defaultThreshold: 1,
  schemaName: 'correctness_verdict',
  schema: BinaryOutputSchema,
  inputSchema: CorrectnessInputSchema,
  imageOf: (input) => input.image,
  prompt: (input, hasImage) => ({
    system: input.reference === undefined ? SYSTEM_WITHOUT_REFERENCE : SYSTEM_WITH_REFERENCE,
    text: renderUser({ output: input.output, input: input.input, reference: input.reference, hasImage }),
  }),
}
