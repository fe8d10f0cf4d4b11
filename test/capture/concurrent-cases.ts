// Eight concurrent tests, each capturing its own agent run while the others' spans start and end in between.
// Shared by the file with no provider registered and the file with the user's own provider.
import '../../matchers/vitest'
import { afterAll, describe, expect, test } from 'vitest'
import { captureTrace } from '../../src/capture/capture-trace'
import { supportAgent } from './agent'

export const CASES = 8

/** Defines the eight tests; `extra` runs after each test's own checks (e.g. what the user's exporter got). */
export function concurrentCases(title: string): void {
  let open = 0
  let peak = 0
  describe.concurrent(title, () => {
    afterAll(() => {
      // The runs overlapped (so a capture had others' spans to refuse): Vitest runs at most 5 tests at once.
      expect(peak).toBeGreaterThanOrEqual(5)
    })

    for (let i = 0; i < CASES; i++) {
      test(`case ${i} gets only its own spans`, async () => {
        const run = await captureTrace(async () => {
          try {
            return await supportAgent(i, {
              onOpen: () => {
                open++
                peak = Math.max(peak, open)
              },
            })
          } finally {
            open--
          }
        })
        expect(run.result).toBe(`case ${i}: order A-${i} has shipped`)
        expect(run.trace.spans.map((s) => s.attributes.case)).toEqual([i, i, i, i])
        expect(run.trace.spans.map((s) => s.name)).toEqual([
          'invoke_agent support',
          'chat gpt-4o-mini',
          'execute_tool lookup_order',
          'chat gpt-4o-mini',
        ])
        expect(run.trace.roots.map((s) => s.name)).toEqual(['invoke_agent support'])
        expect(run.trace.warnings).toEqual([])
        // The matchers take the capture itself, or its trace.
        expect(run).toCallTool('lookup_order', { args: { order_id: `A-${i}` }, times: 1 })
        expect(run.trace).toStayWithinBudget({ llmCalls: 2, tokens: 2 * (110 + i) })
        expect(() => expect(run).toStayWithinBudget({ tokens: 2 * (110 + i) - 1 })).toThrow(/exceeded 1 of 1/)
        await expect(run).toHaveNoFailingSpans({ judge: false })
      })
    }
  })
}
