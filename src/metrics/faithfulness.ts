import * as z from 'zod'
import { MetricImageSchema, type MetricDefinition } from './metric'
import { BinaryOutputSchema, type BinaryOutput } from './output-schemas'
import { PROMPT_VERSION, SYSTEM, renderUser } from './prompts/faithfulness'

export const FaithfulnessInputSchema = z
  .object({
    output: z.string(),
    /** Source text the output must be grounded in (retrieved documents, a tool result …). */
    context: z.string().optional(),
    /** Source image the output must be grounded in; the judge sees the image itself. */
    image: MetricImageSchema.optional(),
    /** The question the output answers, to help the judge find its claims. */
    instruction: z.string().optional(),
  })
  .refine((v) => (v.context !== undefined && v.context.trim() !== '') || v.image !== undefined, {
    message: 'faithfulness needs a source: pass a non-empty context text and/or an image',
  })
export type FaithfulnessInput = z.infer<typeof FaithfulnessInputSchema>

/**
 * Faithfulness (binary): every claim of the output is supported by the context text and/or the image.
 *
 * @example
 * await runMetric(faithfulnessMetric, { output: 'NA leads at $14.10', image: 'chart.png' }, { judge })
 */
export const faithfulnessMetric: MetricDefinition<FaithfulnessInput, BinaryOutput> = {
  name: 'faithfulness',
  title: 'Faithfulness',
  promptVersion: PROMPT_VERSION,
  scale: 'binary',
  defaultThreshold: 1,
  schemaName: 'faithfulness_verdict',
  schema: BinaryOutputSchema,
  inputSchema: FaithfulnessInputSchema,
  imageOf: (input) => input.image,
  prompt: (input, hasImage) => ({
    system: SYSTEM,
    text: renderUser({ output: input.output, context: input.context, instruction: input.instruction, hasImage }),
  }),
}
