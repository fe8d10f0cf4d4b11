// `report diff` on two runs of a trace test: span ids are random per capture, so span verdicts meet on
// their position in the trace; a test that now fails before any verdict is a regression too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { reportCommand } from '../../src/cli/report'
import { buildReport } from '../../src/report/artifact'
import { diffVerdicts, itemsFromReport } from '../../src/report/diff'
import type { Report, ReportTest } from '../../src/verdict/report'
import type { Verdict } from '../../src/verdict/verdict'

const dir = mkdtempSync(join(tmpdir(), 'av-diff-trace-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const spanVerdict = (spanId: string, outcome: 'pass' | 'fail', assertion: string): Verdict => ({
  id: `v-${spanId}`,
  metric: 'span-diagnosis',
  level: 'span',
  spanId,
  scale: 'likert5',
  raw: outcome === 'pass' ? 5 : 1,
  score: outcome === 'pass' ? 1 : 0,
  threshold: 0.5,
  pass: outcome === 'pass',
  outcome,
  reason: outcome === 'pass' ? 'grounded' : 'cites a refund the tool did not return',
  assertion: { id: assertion, matcher: 'toHaveNoFailingSpans', negated: false, passed: outcome === 'pass' },
})

/** One capture of the agent: ids prefixed per run (random in real captures); `positions` false = an older report. */
function traceTest(ids: string, refund: 'pass' | 'fail', positions = true): ReportTest {
  const id = (n: number) => `${ids}${n}`
  const spans = [
    { id: id(0), parentId: null, name: 'invoke_agent support', kind: 'agent', position: '1' },
    { id: id(1), parentId: id(0), name: 'chat gpt-4o-mini', kind: 'llm', position: '1.1' },
    { id: id(2), parentId: id(0), name: 'execute_tool lookup_order', kind: 'tool', position: '1.2' },
    { id: id(3), parentId: id(0), name: 'execute_tool lookup_refund', kind: 'tool', position: '1.3' },
  ].map(({ position, ...s }) => ({ ...s, failed: false, verdictIds: [], ...(positions ? { position } : {}) }))
  return {
    file: 'agent.test.ts',
    name: 'support agent run has no failing spans',
    state: refund,
    verdicts: [spanVerdict(id(1), 'pass', 'a1'), spanVerdict(id(2), 'pass', 'a1'), spanVerdict(id(3), refund, 'a1')],
    traces: [{ id: `${ids}trace`, spans }],
    assertions: [{ id: 'a2', matcher: 'toCallTool', negated: false, passed: true }],
  }
}

const other = (state: 'pass' | 'fail', error?: string): ReportTest => ({
  file: 'answers.test.ts',
  name: 'refund answer is correct',
  state,
  verdicts: [],
  ...(error ? { error } : {}),
})
const unchanged: ReportTest = { file: 'answers.test.ts', name: 'chart answer', state: 'pass', verdicts: [] }

const reportOf = (tests: ReportTest[]): Report =>
  buildReport({ tests, startedAt: new Date(0), judge: null, mode: 'auto' })

async function cliDiff(base: Report, head: Report) {
  const paths = [join(dir, 'base.json'), join(dir, 'head.json')]
  writeFileSync(paths[0], JSON.stringify(base))
  writeFileSync(paths[1], JSON.stringify(head))
  let stdout = ''
  const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stdout += t) } }
  const code = await reportCommand(['diff', ...paths, '--fail-on', 'regression'], io)
  return { code, stdout }
}

describe('report diff on trace tests', () => {
  it('a span that went pass → fail in a new capture is one regression named by test and span; --fail-on regression exits 1', async () => {
    const base = reportOf([traceTest('aaaa', 'pass'), other('pass'), unchanged])
    const head = reportOf([traceTest('bbbb', 'fail'), other('pass'), unchanged])
    const d = diffVerdicts({ label: 'b', items: itemsFromReport(base) }, { label: 'h', items: itemsFromReport(head) })
    expect(d.added).toEqual([])
    expect(d.removed).toEqual([])
    expect(d.flipped.map((f) => `${f.key} ${f.label}`)).toEqual([
      'agent.test.ts › support agent run has no failing spans › toHaveNoFailingSpans › 1.3 tool:execute_tool lookup_refund › span-diagnosis regression',
    ])
    const { code, stdout } = await cliDiff(base, head)
    expect(code).toBe(1)
    expect(stdout).toContain(
      'support agent run has no failing spans › toHaveNoFailingSpans › 1.3 tool:execute_tool lookup_refund',
    )
    expect(stdout).not.toContain('chart answer')
    expect(stdout).toContain('1 flipped (1 regression), 0 score changes, 0 new, 0 removed')
  })

  it('two captures of an unchanged run (new span ids) diff to nothing, from reports with positions or without', async () => {
    for (const positions of [true, false]) {
      const base = reportOf([traceTest('aaaa', 'pass', positions), unchanged])
      const head = reportOf([traceTest('bbbb', 'pass', positions), unchanged])
      const { code, stdout } = await cliDiff(base, head)
      expect(code).toBe(0)
      expect(stdout).toContain('0 flipped (0 regressions), 0 score changes, 0 new, 0 removed')
    }
  })

  it('a test that now fails before any verdict (a replay miss) is a regression naming the test and its error', async () => {
    const base = reportOf([traceTest('aaaa', 'pass'), other('pass'), unchanged])
    const miss =
      'CassetteMissError: no recorded verdict for correctness (test "refund answer is correct" › toBeCorrect)'
    const head = reportOf([traceTest('bbbb', 'pass'), other('fail', miss), unchanged])
    const { code, stdout } = await cliDiff(base, head)
    expect(code).toBe(1)
    expect(stdout).toContain('flipped  answers.test.ts › refund answer is correct: pass – → fail – — regression')
    expect(stdout).not.toContain('chart answer')
  })

  it('an assertion without a verdict that went pass → fail is a regression', () => {
    const base = reportOf([traceTest('aaaa', 'pass')])
    const failing = traceTest('bbbb', 'pass')
    const head = reportOf([
      { ...failing, state: 'fail', assertions: [{ id: 'a2', matcher: 'toCallTool', negated: false, passed: false }] },
    ])
    const d = diffVerdicts({ label: 'b', items: itemsFromReport(base) }, { label: 'h', items: itemsFromReport(head) })
    expect(d.flipped.map((f) => f.key)).toEqual(['agent.test.ts › support agent run has no failing spans › toCallTool'])
    expect(d.regressions).toBe(1)
  })
})
