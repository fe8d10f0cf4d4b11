import { describe, expect, it } from 'vitest'
import { buildReport } from '../../reporters/artifact'
import { renderTerminal, terminalOptionsFor } from '../../reporters/render-terminal'
import type { ReportTest } from '../../src/verdict/report'
import { agentVerdict, outputVerdicts, sampleTests } from './cases'

const report = (tests: ReportTest[]) => buildReport({ tests, startedAt: '2026-03-01T10:00:00Z', runner: 'vitest', judge: 'openai:gpt-4.1-mini', mode: 'auto' })
const width = (line: string) => Array.from(line).length

describe('renderTerminal', () => {
  it('prints output and agent verdicts with score vs threshold, outcome and one-line reason, then totals', () => {
    const [chart, agent] = sampleTests()
    expect(renderTerminal(report([chart, agent]))).toMatchInlineSnapshot(`
      "agent-verdict · 2 tests with verdicts · judge openai:gpt-4.1-mini · mode auto

      ✗ test/chart.test.ts › chart answer is grounded in the chart
          ✗ faithfulness           0.25 < 0.60 (2/5)  fail         The answer cites a 2019 figure that the chart does not contain.
          ✓ instruction-following  1.00 ≥ 0.50        pass         States the region and the dollar amount.

      ✗ test/agent.test.ts › research agent > plans efficiently
          ? plan-efficiency [agent]  n/a  unjudgeable  judge output malformed after 3 attempts

      verdicts 3 · failed 1 · unjudgeable 1 · judge calls 2 · replayed 1 · tokens 4,280 · cost $0.0006
      "
    `)
  })

  it('lists the failing spans of a trace the way trace matchers name them (kind:name, id, path, category, score, reason)', () => {
    const text = renderTerminal(report([sampleTests()[2]]))
    expect(text).toContain('trace 21f0c6c8… · 32 spans · 6 failing')
    expect(text).toContain(
      '✗ tool:VisitTool (id ee7608b3…, path main › … › ToolCallingAgent.run › Step 4 › VisitTool) — Authentication Errors (trail-gold 0.00): The system encountered a 403 error',
    )
    // Span verdicts shown under their trace are not repeated in the flat verdict list.
    expect(text.match(/Authentication Errors/g)).toHaveLength(1)
    expect(text.split('\n').filter((l) => l.trimStart().startsWith('✗ ') && l.includes(' (id '))).toHaveLength(6)
  })

  it('shows a span-level verdict outside any trace with its span id', () => {
    const v = { ...outputVerdicts()[0], level: 'span' as const, spanId: '4a1f9c2e7b3d5a60', metric: 'span-quality' }
    expect(renderTerminal(report([{ file: 'a.test.ts', name: 'x', state: 'fail', verdicts: [v] }]))).toContain('✗ span-quality [span 4a1f9c2e…]')
  })

  it('keeps every line within the width, moving the reason below instead of cutting the category', () => {
    const text = renderTerminal(report(sampleTests()), { width: 72 })
    const lines = text.trimEnd().split('\n')
    for (const line of lines) expect(width(line)).toBeLessThanOrEqual(72)
    expect(lines.some((l) => l.trimStart().startsWith('Authentication Errors (trail-gold 0.00): The system'))).toBe(true)
    expect(lines.some((l) => l.endsWith('…'))).toBe(true)
  })

  it('colours only when asked, and the colour codes do not count against the width', () => {
    const plain = renderTerminal(report(sampleTests()), { colors: false, width: 60 })
    const coloured = renderTerminal(report(sampleTests()), { colors: true, width: 60 })
    expect(plain).not.toMatch(/\u001b\[/)
    expect(coloured).toContain('\u001b[31m✗\u001b[39m')
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain)
  })

  it('says so in one line when the run has no verdicts', () => {
    expect(renderTerminal(report([{ file: 'a.test.ts', name: 'plain', state: 'pass', verdicts: [] }]))).toBe('agent-verdict: no verdicts in this run\n')
  })

  it('shows the test error when a failing test has no failing verdict, and n/a for an unknown cost', () => {
    const v = agentVerdict()
    const tests: ReportTest[] = [
      { file: 'a.test.ts', name: 'boom', state: 'fail', error: 'TypeError: agent is not a function\n    at …', verdicts: [{ ...outputVerdicts()[1] }] },
      { file: 'b.test.ts', name: 'cost', state: 'pass', verdicts: [{ ...v, outcome: 'pass', pass: true, score: 1, raw: 1 }] },
    ]
    const text = renderTerminal(report(tests))
    expect(text).toContain('    error: TypeError: agent is not a function\n')
    expect(text.trimEnd().split('\n').at(-1)).toBe('verdicts 2 · failed 0 · unjudgeable 0 · judge calls 1 · replayed 1 · tokens 3,000 · cost n/a')
  })
})

describe('terminalOptionsFor', () => {
  it('colours a TTY unless NO_COLOR is set, and never a pipe', () => {
    expect(terminalOptionsFor({ isTTY: true, columns: 80 }, {})).toEqual({ colors: true, width: 80 })
    expect(terminalOptionsFor({ isTTY: true, columns: 80 }, { NO_COLOR: '1' })).toEqual({ colors: false, width: 80 })
    expect(terminalOptionsFor({ isTTY: false }, {})).toEqual({ colors: false, width: undefined })
  })
})
