import * as z from 'zod'

// Property order matters: the judge writes `reasoning` before it commits to a score.
const reasoning = z
  .string()
  .describe(
    'Your analysis, written before the score: the constraints, claims or values you checked and what you found.',
  )

/** Reply of a binary metric: 1 = pass, 0 = fail. */
export const BinaryOutputSchema = z.object({
  reasoning,
  score: z.number().int().min(0).max(1).describe('1 = pass, 0 = fail. When in doubt, 0.'),
})
export type BinaryOutput = z.infer<typeof BinaryOutputSchema>

/** Reply of a 1–5 metric. */
export const LikertOutputSchema = z.object({
  reasoning,
  score: z.number().int().min(1).max(5).describe('1 (worst) to 5 (best).'),
})
export type LikertOutput = z.infer<typeof LikertOutputSchema>

const AspectSchema = z.object({
  note: z.string().describe('One short sentence.'),
  score: z.number().int().min(1).max(5),
})

/** Reply of Overall Quality: reasoning, a note and score per aspect, then the overall 1–5 score. */
export const QualityOutputSchema = z.object({
  reasoning,
  aspects: z.object({
    visual_accuracy: AspectSchema,
    instruction_adherence: AspectSchema,
    completeness: AspectSchema,
    coherence: AspectSchema,
  }),
  score: z.number().int().min(1).max(5).describe('Overall quality, 1 (unacceptable) to 5 (excellent).'),
})
export type QualityOutput = z.infer<typeof QualityOutputSchema>
