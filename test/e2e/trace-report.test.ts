// Runs Vitest programmatically on a fixture project that uses the trace matchers against the fake judge,
// and checks that the reporter's terminal section and artifact show the span tree with each span's verdicts.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startVitest } from 'vitest/node'
import { readReport } from '../../src/report/artifact'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'

const fixture = fileURLToPath(new URL('./fixtures/trace-report', import.meta.url))
const reporter = fileURLToPath(new URL('../../reporters/vitest-reporter.ts', import.meta.url))
const FINAL_LLM = '05168be1bb804a8d'
/** How its judge prompt names it: by position, since span ids are random per live capture. */
const FINAL_LLM_AT = 'position: 1.2.3\n'

let fake: FakeJudge
beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [
      {
        name: 'final-format',
        when: { contains: FINAL_LLM_AT },
        respond: {
          verdict: 'fail',
          reason: 'the final answer drops the required format',
          fields: { error_category: 'Formatting Errors', evidence: 'FINAL ANSWER: right' },
        },
      },
    ],
  })
})
afterAll(() => fake.close())

/** Runs the fixture with the agent-verdict reporter; the env reaches the forked workers. */
async function runFixture(outputFile: string): Promise<string> {
  let out = ''
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk)
      done()
    },
  })
  stdout.end = () => stdout // Vitest pipes worker output into it and would end it
  const saved = { judge: process.env.AGENT_VERDICT_JUDGE, mode: process.env.AGENT_VERDICT_MODE, code: process.exitCode }
  process.env.AGENT_VERDICT_JUDGE = `openai-compatible:${fake.baseURL}#fake-judge`
  process.env.AGENT_VERDICT_MODE = 'live'
  try {
    const vitest = await startVitest(
      'test',
      [],
      {
        root: fixture,
        config: join(fixture, 'vitest.config.ts'),
        watch: false,
        reporters: [[reporter, { outputFile }]],
      },
      {},
      { stdout, stderr: stdout },
    )
    await vitest.close()
  } finally {
    for (const [key, value] of [
      ['AGENT_VERDICT_JUDGE', saved.judge],
      ['AGENT_VERDICT_MODE', saved.mode],
    ] as const) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
    process.exitCode = saved.code // the fixture's failing test is its result, not ours
  }
  return out
}

it('the terminal section and the artifact show the diagnosed span tree with each span verdict', async () => {
  const outputFile = join(mkdtempSync(join(tmpdir(), 'av-trace-e2e-')), 'report.json')
  const out = await runFixture(outputFile)
  const report = await readReport(outputFile) // validated with ReportSchema

  const diagnosed = report.tests.find((t) => t.name === 'diagnosed run has no failing spans')!
  expect(diagnosed.state).toBe('fail')
  expect(diagnosed.error).toContain('judged spans failed (policy existential):')
  const tree = diagnosed.traces![0]
  expect(tree.id).toBe('0ebe673d64647ec44c370638b82d3c78')
  expect(tree.spans).toHaveLength(11)
  // Every span with verdicts links them by id, and every verdict of the test is linked from its span.
  const byId = new Map(diagnosed.verdicts.map((v) => [v.id, v]))
  for (const span of tree.spans) for (const id of span.verdictIds) expect(byId.get(id)?.spanId).toBe(span.id)
  expect(diagnosed.verdicts.every((v) => tree.spans.some((s) => s.verdictIds.includes(v.id!)))).toBe(true)
  const leaf = tree.spans.find((s) => s.id === FINAL_LLM)!
  expect(leaf).toMatchObject({ failed: true, kind: 'llm' })
  expect(leaf.verdictIds.map((id) => [byId.get(id)!.metric, byId.get(id)!.outcome])).toEqual([
    ['span.instruction_following', 'fail'],
    ['span.reasoning_integrity', 'fail'],
    ['span.tool_completeness', 'fail'],
    ['span.error_category', 'fail'],
  ])
  expect(tree.spans.filter((s) => s.parentId === null).map((s) => [s.name, s.failed])).toEqual([['main', true]])

  const agent = report.tests.find((t) => t.name === 'run completes its task')!
  expect(agent.verdicts.map((v) => [v.metric, v.level, v.outcome])).toEqual([['agent.completeness', 'agent', 'pass']])
  expect(
    report.tests.find((t) => t.name === 'run stays within budget')!.verdicts.map((v) => [v.metric, v.outcome]),
  ).toEqual([['budget', 'pass']])

  expect(out).toContain('agent-verdict · 3 tests with verdicts')
  expect(out).toMatch(
    /trace 0ebe673d… · 11 spans · \d+ failing · \d+ above them by propagation · \d+ span verdicts passed/,
  )
  // A span failed on several verdicts is named once, each verdict on its own line below it.
  expect(out).toMatch(
    /✗ llm:LiteLLMModel\.__call__ \(id 05168be1…, path main › answer_single_question › LiteLLMModel\.__call__\)(\n {10}.*)*\n {10}Formatting Errors \(span\.error_category 0\/1\): the final answer drops the required format/,
  )
  expect(out).toMatch(/✓ agent\.completeness \[agent\] +5\/5, min 3 +pass/)
})
