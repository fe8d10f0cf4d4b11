import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildReport, computeTotals, mergeReports, readReport, writeReport } from '../../src/report/artifact'
import { ReportSchema, type Report } from '../../src/verdict/report'
import { agentVerdict, outputVerdicts, sampleTests } from './cases'

const tmp = () => mkdtempSync(join(tmpdir(), 'av-artifact-'))

describe('computeTotals', () => {
  it('counts verdicts, failures, unjudgeables, calls made vs replayed, tokens and known cost', () => {
    expect(computeTotals(sampleTests())).toEqual({
      tests: 3,
      failedTests: 3,
      assertions: 4, // chart: 2 output assertions; agent: 1; trail: the 6 span verdicts of one trace assertion
      failed: 3, // faithfulness, the unjudgeable plan, the trace
      verdicts: 9, // 2 output + 1 agent + 6 gold span verdicts
      judgedFail: 7,
      unjudgeable: 1,
      judgeCalls: 2, // faithfulness + plan-efficiency; instruction-following was replayed
      judgeRetries: 0,
      judgeReasks: 0,
      cachedCalls: 1,
      tokens: 1200 + 80 + 3000, // the replayed call's 940 tokens are not spent
      costUsd: 0.00061, // plan-efficiency's cost is unknown and left out
    })
  })

  it('a passing .not is no failure: failed counts failed assertions, judgedFail what the judge said', () => {
    const [judgedFail, judgedPass] = outputVerdicts()
    const not = (passed: boolean, id: string) => ({ id, matcher: 'toBeCorrect', negated: true, passed })
    const totals = computeTotals([
      { file: 'a', name: 'green', state: 'pass', verdicts: [{ ...judgedFail, assertion: not(true, 'toBeCorrect#1') }] },
      { file: 'a', name: 'red', state: 'fail', verdicts: [{ ...judgedPass, assertion: not(false, 'toBeCorrect#1') }] },
    ])
    expect(totals).toMatchObject({ assertions: 2, failed: 1, verdicts: 2, judgedFail: 1 })
  })

  it("counts an assertion that produced no verdict (a .not on a clean trace) from the test's assertions", () => {
    const totals = computeTotals([
      {
        file: 'a',
        name: 'clean',
        state: 'fail',
        verdicts: [],
        assertions: [{ id: 'toHaveNoFailingSpans#1', matcher: 'toHaveNoFailingSpans', negated: true, passed: false }],
      },
    ])
    expect(totals).toMatchObject({ assertions: 1, failed: 1, verdicts: 0 })
  })

  it('counts every request: each sample, retry and re-ask is a judge call; replayed samples are replayed calls', () => {
    const [v] = outputVerdicts()
    const calls = (made: number, replayed: number, retries: number, reasks: number) => ({
      ...v,
      judge: { ...v.judge!, calls: { made, replayed, retries, reasks } },
    })
    const totals = computeTotals([
      { file: 'a', name: 'samples', state: 'fail', verdicts: [calls(5, 0, 1, 1), calls(0, 3, 0, 0)] },
    ])
    expect(totals).toMatchObject({ judgeCalls: 5, judgeRetries: 1, judgeReasks: 1, cachedCalls: 3, tokens: 1280 })
  })

  it('is null when calls were made and none has a known cost, 0 when no call was made', () => {
    const unknown = agentVerdict()
    expect(computeTotals([{ file: 'a', name: 'a', state: 'fail', verdicts: [unknown] }]).costUsd).toBeNull()
    const replayed = outputVerdicts()[1]
    expect(computeTotals([{ file: 'a', name: 'a', state: 'pass', verdicts: [replayed] }]).costUsd).toBe(0)
    expect(computeTotals([]).costUsd).toBe(0)
  })
})

describe('buildReport / writeReport / readReport', () => {
  const report = () =>
    buildReport({
      tests: sampleTests(),
      startedAt: new Date('2026-03-01T10:00:00Z'),
      runner: 'vitest',
      judge: 'openai:gpt-4.1-mini',
      mode: 'auto',
    })

  it('builds a report that validates against ReportSchema', () => {
    const r = report()
    expect(ReportSchema.safeParse(r).success).toBe(true)
    expect(r.run.startedAt).toBe('2026-03-01T10:00:00.000Z')
    expect(r.run.totals.verdicts).toBe(9)
  })

  it('writes pretty JSON into a new nested directory without leaving temp files, and reads it back', async () => {
    const dir = tmp()
    const path = await writeReport(join(dir, 'deep', 'er', 'report.json'), report())
    expect(path).toBe(join(dir, 'deep', 'er', 'report.json'))
    expect(readdirSync(join(dir, 'deep', 'er'))).toEqual(['report.json'])
    const text = readFileSync(path, 'utf8')
    expect(text.startsWith('{\n  "schemaVersion": 2')).toBe(true)
    expect(await readReport(path)).toEqual(report())
  })

  it('reads a version-1 report, recomputing its totals the version-2 way', async () => {
    const v2 = report()
    const v1 = {
      ...v2,
      schemaVersion: 1,
      run: {
        ...v2.run,
        totals: {
          verdicts: 9,
          failed: 7,
          unjudgeable: 1,
          judgeCalls: 2,
          cachedCalls: 1,
          tokens: 4280,
          costUsd: 0.00061,
        },
      },
    }
    const path = join(tmp(), 'v1.json')
    writeFileSync(path, JSON.stringify(v1))
    const read = await readReport(path)
    expect(read.schemaVersion).toBe(2)
    expect(read.run.totals).toEqual(computeTotals(sampleTests()))
  })

  it('refuses to write an invalid report, naming the zod issue path', async () => {
    const bad = report()
    bad.tests[0].verdicts[0].score = 2
    await expect(writeReport(join(tmp(), 'r.json'), bad)).rejects.toThrow(/tests\.0\.verdicts\.0\.score/)
  })

  it('rejects a report of another schema version and says how to regenerate it', async () => {
    const path = join(tmp(), 'old.json')
    writeFileSync(path, JSON.stringify({ ...report(), schemaVersion: 0 }))
    await expect(readReport(path)).rejects.toThrow(/schemaVersion 0.*Re-run the tests/)
  })
})

describe('mergeReports', () => {
  it('concatenates shards, recomputes totals and keeps the earliest start and latest finish', () => {
    const [a, b, c] = sampleTests()
    const shard1: Report = buildReport({
      tests: [a],
      startedAt: '2026-03-01T10:00:05.000Z',
      finishedAt: '2026-03-01T10:01:00.000Z',
      runner: 'vitest',
      judge: 'openai:gpt-4.1-mini',
      mode: 'replay',
    })
    const shard2: Report = buildReport({
      tests: [b, c],
      startedAt: '2026-03-01T10:00:01.000Z',
      finishedAt: '2026-03-01T10:02:00.000Z',
      runner: 'vitest',
      judge: 'openai:gpt-4.1-mini',
      mode: 'replay',
    })
    const merged = mergeReports([shard1, shard2])
    expect(merged.tests.map((t) => t.file)).toEqual(['test/chart.test.ts', 'test/agent.test.ts', 'test/trail.test.ts'])
    expect(merged.run).toMatchObject({
      startedAt: '2026-03-01T10:00:01.000Z',
      finishedAt: '2026-03-01T10:02:00.000Z',
      runner: 'vitest',
      judge: 'openai:gpt-4.1-mini',
      mode: 'replay',
    })
    expect(merged.run.totals).toEqual(computeTotals(sampleTests()))
    expect(merged.run.totals.verdicts).toBe(shard1.run.totals.verdicts + shard2.run.totals.verdicts)
    expect(ReportSchema.safeParse(merged).success).toBe(true)
  })

  it('lists differing judges and modes instead of picking one', () => {
    const r1 = buildReport({ tests: [], startedAt: '2026-03-01T10:00:00Z', judge: 'openai:a', mode: 'auto' })
    const r2 = buildReport({ tests: [], startedAt: '2026-03-01T10:00:00Z', judge: 'bedrock:b', mode: 'replay' })
    expect(mergeReports([r1, r2]).run).toMatchObject({ judge: 'openai:a, bedrock:b', mode: 'auto, replay' })
    expect(() => mergeReports([])).toThrow(/at least one/)
  })
})
