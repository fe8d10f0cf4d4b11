import * as z from 'zod'
import type { MetricDefinition } from './metric'
import { BinaryOutputSchema, type BinaryOutput } from './output-schemas'
import { PROMPT_VERSION, SYSTEM, renderUser } from './prompts/instruction-following'

export const InstructionFollowingInputSchema = z.object({
  output: z.string(),
  instruction: z.string().min(1, 'instruction is empty: pass the instruction the output had to follow'),
  /** Accepted so callers can pass one case object to every metric; never sent to the judge. */
  reference: z.string().optional(),
})
export type InstructionFollowingInput = z.infer<typeof InstructionFollowingInputSchema>

/**
 * Instruction Following (binary): does the output obey every explicit constraint of the instruction?
 * The reference answer is dropped on purpose: it distracts the judge from structural constraints.
 *
 * @example
 * await runMetric(instructionFollowingMetric, { output: 'W7', instruction: 'Answer with the week label only.' }, { judge })
 */
export const instructionFollowingMetric: MetricDefinition<InstructionFollowingInput, BinaryOutput> = {
  name: 'instruction-following',
  title: 'Instruction following',
  promptVersion: PROMPT_VERSION,
  scale: 'binary',
  defaultThreshold: 1,
  schemaName: 'instruction_following_verdict',
  schema: BinaryOutputSchema,
  inputSchema: InstructionFollowingInputSchema,
  imageOf: () => undefined,
  prompt: (input) => ({ system: SYSTEM, text: renderUser({ instruction: input.instruction, output: input.output }) }),
}
