// The gold of the cross-framework set: per trace, the (span id, TRAIL category) pairs its planted failure left,
// resolved from the scenario's span roles on the parsed trace.
import * as z from 'zod'
import { TRAIL_CATEGORIES } from '../../src/taxonomy'
import type { Trace } from '../../src/trace/trace'
import { FAILURES, type Scenario } from './scenarios'

export const GoldTraceSchema = z.object({
  file: z.string(),
  sdk: z.string(),
  scenario: z.string(),
  task: z.string(),
  failure: z.enum(FAILURES),
  budget: z.object({ llmCalls: z.number().int().positive() }),
  gold: z.array(z.object({ spanId: z.string(), role: z.string(), category: z.enum(TRAIL_CATEGORIES) })),
})
export type GoldTrace = z.infer<typeof GoldTraceSchema>
export const GoldFileSchema = z.object({ traces: z.array(GoldTraceSchema) })
export type GoldFile = z.infer<typeof GoldFileSchema>

/** The scenario's gold spans on the parsed trace (LLM and tool spans in start order); throws when one is missing. */
export function resolveGold(trace: Trace, gold: Scenario['gold'], file: string): GoldTrace['gold'] {
  const byStart = [...trace.spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
  return gold.map(({ span, category }) => {
    const candidates =
      span.kind === 'llm'
        ? byStart.filter((s) => s.kind === 'llm')
        : byStart.filter(
            (s) =>
              (s.kind === 'tool' && s.toolName === span.name) ||
              // The AI SDK's tool spans (`ai.toolCall`), which the readers do not map to tool spans (yet).
              s.attributes['ai.toolCall.name'] === span.name,
          )
    const hit = candidates[span.nth - 1]
    const role = span.kind === 'llm' ? `llm #${span.nth}` : `tool ${span.name} #${span.nth}`
    if (!hit) throw new Error(`${file}: no ${role} for the gold ${category}`)
    return { spanId: hit.id, role, category }
  })
}
