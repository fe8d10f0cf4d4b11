import { describe, expect, it } from 'vitest'
import { buildReport } from '../../src/report/artifact'
import { renderTerminal, terminalOptionsFor } from '../../src/report/render-terminal'
import type { ReportTest } from '../../src/verdict/report'
import { agentVerdict, outputVerdicts, sampleTests } from './cases'

const report = (tests: ReportTest[]) =>
  buildReport({
    tests,
    startedAt: '2026-03-01T10:00:00Z',
    runner: 'vitest',
    judge: 'openai:gpt-4.1-mini',
    mode: 'auto',
  })
const width = (line: string) => Array.from(line).length

describe('renderTerminal', () => {
  it('prints output and agent verdicts with score vs threshold, outcome and one-line reason, then totals', () => {
    const [chart, agent] = sampleTests()
    expect(renderTerminal(report([chart, agent]))).toMatchInlineSnapshot(`
      "agent-verdict · 2 tests with verdicts · judge openai:gpt-4.1-mini · mode auto

      ✗ test/chart.test.ts › chart answer is grounded in the chart
          ✗ faithfulness           2/5, min 3.4  fail         The answer cites a 2019 figure that the chart does not contain.
          ✓ instruction-following  1/1, min 0.5  pass         States the region and the dollar amount.

      ✗ test/agent.test.ts › research agent > plans efficiently
          ? plan-efficiency [agent]  n/a  unjudgeable  judge output malformed after 3 attempts

      tests 2 · failed tests 2 · assertions 3 · failed 2 · verdicts 3 · judged fail 1 · unjudgeable 1 · judge calls 2 · replayed 1 · tokens 4,280 · cost $0.0006
      "
    `)
  })

  it('lists the failing spans of a trace the way trace matchers name them (kind:name, id, path, category, score, reason)', () => {
    const text = renderTerminal(report([sampleTests()[2]]))
    // The same count as the HTML report: 6 spans failed, 8 more marked by propagation (not "14 failed").
    expect(text).toContain('trace 21f0c6c8… · 32 spans · 6 failing · 8 above them by propagation\n')
    expect(text).toContain(
      '✗ tool:VisitTool (id ee7608b3…, path main › … › ToolCallingAgent.run › Step 4 › VisitTool) — Authentication Errors (trail-gold 0/1): The system encountered a 403 error',
    )
    // Span verdicts shown under their trace are not repeated in the flat verdict list.
    expect(text.match(/Authentication Errors/g)).toHaveLength(1)
    expect(text.split('\n').filter((l) => l.trimStart().startsWith('✗ ') && l.includes(' (id '))).toHaveLength(6)
  })

  it('shows a span-level verdict outside any trace with its span id', () => {
    const v = { ...outputVerdicts()[0], level: 'span' as const, spanId: '4a1f9c2e7b3d5a60', metric: 'span-quality' }
    expect(renderTerminal(report([{ file: 'a.test.ts', name: 'x', state: 'fail', verdicts: [v] }]))).toContain(
      '✗ span-quality [span 4a1f9c2e…]',
    )
  })

  it('keeps every line within the width, moving the reason below instead of cutting the category', () => {
    const text = renderTerminal(report(sampleTests()), { width: 72 })
    const lines = text.trimEnd().split('\n')
    for (const line of lines) expect(width(line)).toBeLessThanOrEqual(72)
    expect(lines.some((l) => l.trimStart().startsWith('Authentication Errors (trail-gold 0/1): The system'))).toBe(true)
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
    expect(renderTerminal(report([{ file: 'a.test.ts', name: 'plain', state: 'pass', verdicts: [] }]))).toBe(
      'agent-verdict: no verdicts in this run\n',
    )
  })

  it('shows the test error when a failing test has no failing verdict, and n/a for an unknown cost', () => {
    const v = agentVerdict()
    const tests: ReportTest[] = [
      {
        file: 'a.test.ts',
        name: 'boom',
        state: 'fail',
        error: 'TypeError: agent is not a function\n    at …',
        verdicts: [{ ...outputVerdicts()[1] }],
      },
      {
        file: 'b.test.ts',
        name: 'cost',
        state: 'pass',
        verdicts: [{ ...v, outcome: 'pass', pass: true, score: 1, raw: 1 }],
      },
    ]
    const text = renderTerminal(report(tests))
    expect(text).toContain('    error: TypeError: agent is not a function\n')
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'tests 2 · failed tests 1 · assertions 2 · failed 0 · verdicts 2 · judged fail 0 · unjudgeable 0 · judge calls 1 · replayed 1 · tokens 3,000 · cost n/a',
    )
  })

  it("counts assertions: a passing .not is ✓ and no failure, the judge's verdict stays visible, a failing .not is ✗", () => {
    const [judgedFail, judgedPass] = outputVerdicts()
    const notPass = {
      ...judgedFail,
      assertion: { id: 'toBeFaithfulToImage#1', matcher: 'toBeFaithfulToImage', negated: true, passed: true },
    }
    const notFail = {
      ...judgedPass,
      assertion: { id: 'toFollowInstructions#1', matcher: 'toFollowInstructions', negated: true, passed: false },
    }
    const text = renderTerminal(
      report([{ file: 'a.test.ts', name: 'nots', state: 'fail', verdicts: [notPass, notFail] }]),
    )
    expect(text).toContain('    ✓ faithfulness           2/5, min 3.4  fail, expected not  The answer cites')
    expect(text).toContain('    ✗ instruction-following  1/1, min 0.5  pass, expected not  States the region')
    expect(text).toContain('assertions 2 · failed 1 · verdicts 2 · judged fail 1 ·')
  })

  it('an all-green run of .not assertions on failing spans reports 0 failed', () => {
    const t = sampleTests()[2]
    const verdicts = t.verdicts.map((v) => ({
      ...v,
      assertion: { id: 'toHaveNoFailingSpans#1', matcher: 'toHaveNoFailingSpans', negated: true, passed: true },
    }))
    const text = renderTerminal(report([{ ...t, state: 'pass', verdicts }]))
    expect(text).toContain('assertions 1 · failed 0 · verdicts 6 · judged fail 6 ·')
    expect(text).toContain(
      '✓ tool:VisitTool (id ee7608b3…, path main › … › ToolCallingAgent.run › Step 4 › VisitTool) — Authentication Errors (trail-gold 0/1) [judged fail, expected not]: The system',
    )
    expect(text).not.toMatch(/^\s*✗/m)
  })

  it('neutralizes control characters from judged content: no escape reaches the terminal, no fake line', () => {
    const hostile = '\u001b[2K\r\u001b[32m✓ pass\u001b[0m\u009b31m\u202e'
    const t = sampleTests()[2]
    const trace = { ...t.traces![0], spans: t.traces![0].spans.map((s) => ({ ...s, name: s.name + hostile })) }
    const verdicts = t.verdicts.map((v) => ({ ...v, reason: v.reason + hostile, metric: v.metric + '\u0007' }))
    const out = [
      renderTerminal(report([{ ...t, name: `x${hostile}`, file: `f${hostile}.ts`, verdicts, traces: [trace] }])),
      renderTerminal(
        report([
          {
            file: `f${hostile}`,
            name: 'y',
            state: 'fail',
            error: `Error: boom${hostile}`,
            verdicts: [{ ...outputVerdicts()[1], reason: hostile }],
          },
        ]),
        { colors: true },
      ),
    ].join('')
    // Only the renderer's own SGR colour codes may remain; nothing from the content.
    const withoutOwnColours = out.replace(/\u001b\[(?:3[0-9]|39|1|22|2)m/g, '')
    expect(withoutOwnColours).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(out).toContain('␛[2K␍␛[32m✓ pass␛[0m')
    // Every line that starts with ✓ is one the renderer wrote (none is forged by a carriage return).
    for (const line of out.split('\n')) expect(line).not.toMatch(/^✓ pass/)
  })
})

describe('terminalOptionsFor', () => {
  it('colours a TTY unless NO_COLOR is set, and never a pipe', () => {
    expect(terminalOptionsFor({ isTTY: true, columns: 80 }, {})).toEqual({ colors: true, width: 80 })
    expect(terminalOptionsFor({ isTTY: true, columns: 80 }, { NO_COLOR: '1' })).toEqual({ colors: false, width: 80 })
    expect(terminalOptionsFor({ isTTY: false }, {})).toEqual({ colors: false, width: undefined })
  })
})
