import * as z from 'zod'
import { MetricImageSchema, MetricScaleSchema, type MetricDefinition } from './metric'
import { BinaryOutputSchema, LikertOutputSchema, type BinaryOutput, type LikertOutput } from './output-schemas'
import { PROMPT_VERSION, SYSTEM_BINARY, SYSTEM_LIKERT, renderUser } from './prompts/rubric'

export const RubricInputSchema = z.object({
  output: z.string(),
  rubric: z.string().trim().min(1, 'rubric is empty: describe what a passing output must do'),
  /** What the output was answering. */
  input: z.string().optional(),
  image: MetricImageSchema.optional(),
  /** `binary` (default: every criterion must hold) or `likert5` (1–5, pass from 4 by default). */
  scale: MetricScaleSchema.default('binary'),
})
export type RubricInput = z.input<typeof RubricInputSchema>

type ParsedRubricInput = z.output<typeof RubricInputSchema>

function define<O extends BinaryOutput | LikertOutput>(
  scale: 'binary' | 'likert5',
  schema: z.ZodType<O>,
  system: string,
): MetricDefinition<ParsedRubricInput, O> {
  return {
    name: 'rubric',
    title: 'Rubric',
    promptVersion: PROMPT_VERSION,
    scale,
    defaultThreshold: scale === 'binary' ? 1 : 0.75,
    schemaName: scale === 'binary' ? 'rubric_verdict' : 'rubric_score',
    schema,
    inputSchema: RubricInputSchema as z.ZodType<ParsedRubricInput>,
    imageOf: (input) => input.image,
    prompt: (input, hasImage) => ({
      system,
      text: renderUser({ rubric: input.rubric, output: input.output, input: input.input, hasImage }),
    }),
  }
}

const BINARY = define('binary', BinaryOutputSchema, SYSTEM_BINARY)
const LIKERT = define('likert5', LikertOutputSchema, SYSTEM_LIKERT)

/**
 * The custom-rubric metric for a scale: binary (strict, "when in doubt, fail") or 1–5.
 *
 * @example
 * await runMetric(rubricMetric('likert5'), { output, rubric: 'Polite and names the order number.', scale: 'likert5' }, { judge })
 */
export function rubricMetric(
  scale: 'binary' | 'likert5' = 'binary',
): MetricDefinition<ParsedRubricInput, BinaryOutput | LikertOutput> {
  return scale === 'binary' ? BINARY : LIKERT
}
