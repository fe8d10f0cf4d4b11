// The pull-request loop as users run it, under the real Vitest and Jest CLIs on a project that imports
// the built package by name: an agent captured live through InMemorySpanExporter, text, image and
// trace matchers with `.not` cases, the shipped fake judge, CI split in two shards and their reports
// merged with `agent-verdict report merge`. record → re-record (no diff) → judge stopped + CI=true
// (passes, 0 calls) → the agent's answer changes (the miss names the test; re-recording shows the flip).
// One test file per runner (pr-loop-vitest.test.ts, pr-loop-jest.test.ts) calls `prLoop`: the two loops share
// nothing, so they are two ~55 s files on Vitest's workers instead of one ~110 s file that could start last in a
// shuffled run and hold the whole suite.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readReport } from '../../src/report/artifact'
import { startFakeJudge, type FakeJudge } from '../../src/testing/index'
import type { Report } from '../../src/verdict/report'
import { makeProject, repo, run, type RunResult, usePackageUnderTest } from './user-project'

const WRONG_REFUND = 'The answer says $45 was refunded; the refund issued was $40.'
const RULES = [
  {
    name: 'wrong-refund',
    when: { contains: 'A refund of $45', schemaName: 'correctness_verdict' },
    respond: { verdict: 'fail' as const, reason: WRONG_REFUND },
  },
  // The trace regresses too: a span judge that sees the $45 refund fails that span.
  {
    name: 'wrong-refund-span',
    when: { contains: '$45', schemaName: 'span_diagnosis' },
    respond: { verdict: 'fail' as const, reason: 'The refund amount does not match the order.' },
  },
  {
    name: 'wrong-total',
    when: { contains: '$1,926.00' },
    respond: { verdict: 'fail' as const, reason: 'The total due is $1,296.00, not $1,926.00.' },
  },
  {
    name: 'wrong-region',
    when: { contains: 'EMEA has the highest' },
    respond: { verdict: 'fail' as const, reason: 'The chart shows North America highest, not EMEA.' },
  },
]
/** Judge calls per full run: 4 output matchers + 4 judged spans (2 chats, 2 tool calls). */
const CALLS = 8
const OUTPUT_METRICS = ['correctness', 'correctness', 'faithfulness', 'faithfulness']

const runners = {
  vitest: {
    deps: ['vitest'],
    args: [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'],
    shard: (n: number) => [`--shard=${n}/2`, '--passWithNoTests'],
  },
  jest: {
    deps: ['jest', '@swc/jest'],
    args: [join(repo, 'node_modules/jest/bin/jest.js'), '--cacheDirectory', '.jest-cache'],
    shard: (n: number) => [`--shard=${n}/2`, '--passWithNoTests'],
  },
} as const

/** Every cassette file's bytes, by name. */
function snapshot(project: string): Record<string, string> {
  const dir = join(project, '__verdicts__')
  if (!existsSync(dir)) return {}
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  )
}

/** A line diff (LCS): what `git diff` would show as removed and added lines. */
function lineDiff(before: string, after: string): { removed: string[]; added: string[] } {
  const a = before.split('\n')
  const b = after.split('\n')
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1])
  const removed: string[] = []
  const added: string[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++
      j++
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) added.push(b[j++])
    else removed.push(a[i++])
  }
  return { removed, added }
}

const verdictsOf = (report: Report) => report.tests.flatMap((t) => t.verdicts)

/** The report's totals recomputed from its tests: they must agree with what the run says it did. */
function expectConsistentTotals(report: Report) {
  const all = verdictsOf(report)
  expect(report.run.totals.verdicts).toBe(all.length)
  expect(report.run.totals.unjudgeable).toBe(all.filter((v) => v.outcome === 'unjudgeable').length)
}

/**
 * The PR loop under one runner, on a project and a fake judge of its own. Its steps (record, re-record, replay, a
 * changed answer) run in this order even when CI shuffles the suite.
 */
export function prLoop(runner: keyof typeof runners): void {
  const { deps, args, shard } = runners[runner]
  let fake: FakeJudge
  const cleanup: string[] = []

  const pkg = usePackageUnderTest()

  beforeAll(async () => {
    fake = await startFakeJudge({
      rules: RULES,
      defaultVerdict: { verdict: 'pass', reason: 'Supported by the given material.' },
    })
  }, 180_000)

  afterAll(async () => {
    await fake?.close()
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
  })

  describe(`the PR loop under ${runner}`, { shuffle: false }, () => {
    let project: string
    let recorded: Record<string, string>
    const judgeEnv = (baseURL = fake.baseURL) => ({ AGENT_VERDICT_JUDGE: `openai-compatible:${baseURL}#fake-judge` })
    const cli = () => join(project, 'node_modules/agent-verdict/bin/agent-verdict.js')

    /**
     * Both CI shards, one after the other (each writes its own report), then the package's merge. Not side by side:
     * the runs are CPU-bound, so on a busy 2-core machine two at once only doubled each one's time, and a shard's
     * trace test then ran out of its 30 s.
     */
    async function shards(env: Record<string, string>): Promise<{ results: RunResult[]; merged: Report }> {
      const results: RunResult[] = []
      for (const n of [1, 2])
        results.push(await run(project, [...args, ...shard(n)], { ...env, AV_REPORT: `reports/shard-${n}.json` }))
      const merge = await run(
        project,
        [cli(), 'report', 'merge', 'reports/shard-1.json', 'reports/shard-2.json', '--out', 'reports/merged.json'],
        {},
      )
      expect(merge.code, merge.output).toBe(0)
      const merged = await readReport(join(project, 'reports/merged.json'))
      return { results, merged }
    }

    beforeAll(() => {
      project = makeProject('pr-loop', pkg.dir, [...deps, '@opentelemetry/api', '@opentelemetry/sdk-trace-base'])
      cpSync(join(repo, 'test/e2e/fixtures', `pr-loop-${runner}`), project, { recursive: true })
      cpSync(join(repo, 'test/fixtures/images/revenue-by-region.png'), join(project, 'revenue-by-region.png'))
      cleanup.push(project)
    })

    it('records in two shards: every assertion passes and the merged report counts them all', async () => {
      fake.reset()
      const { results, merged } = await shards(judgeEnv())
      for (const r of results) expect(r.code, r.output).toBe(0)
      expect(fake.stats.requests).toBe(CALLS)
      expect(Object.keys(snapshot(project))).toEqual(['agent-trace.test.ts.json', 'answers.test.ts.json'])
      // No global setup in this config: the hint says how to add it in this runner's own syntax.
      const hints = results.map((r) => r.output).join('\n')
      expect(hints).toContain(
        runner === 'jest'
          ? "add globalSetup: 'agent-verdict/global-setup' (one string, not a list) to jest.config"
          : "add globalSetup: ['agent-verdict/global-setup'] to test in vitest.config.ts",
      )
      if (runner === 'jest') expect(hints).not.toContain("globalSetup: ['agent-verdict/global-setup']")

      expect(merged.tests.map((t) => `${t.file} › ${t.state}`).sort()).toEqual([
        'agent-trace.test.ts › pass',
        'answers.test.ts › pass',
        'answers.test.ts › pass',
        'answers.test.ts › pass',
      ])
      expectConsistentTotals(merged)
      expect(merged.run.totals).toMatchObject({ judgeCalls: CALLS, cachedCalls: 0, unjudgeable: 0 })
      const all = verdictsOf(merged)
      expect(
        all
          .filter((v) => v.level === 'output')
          .map((v) => v.metric)
          .sort(),
      ).toEqual(OUTPUT_METRICS)
      expect(all.filter((v) => v.level === 'span' && v.judge).length).toBe(CALLS - OUTPUT_METRICS.length)
      recorded = snapshot(project)
      // Named for review, and free of anything random: live span ids never reach the file.
      const trace = recorded['agent-trace.test.ts.json']
      expect(trace).toContain(
        '"test": "support agent run has no failing spans", "matcher": "toHaveNoFailingSpans", "span": "1.',
      )
      for (const span of merged.tests.flatMap((t) => t.traces ?? []).flatMap((t) => t.spans))
        expect(trace).not.toContain(span.id)
      expect(recorded['answers.test.ts.json']).toContain('"matcher": "not.toBeFaithfulToImage"')
    }, 300_000)

    it('re-records with unchanged verdicts: the judge is asked again and __verdicts__ stays byte for byte the same', async () => {
      fake.reset()
      const result = await run(project, [...args], { ...judgeEnv(), AGENT_VERDICT_MODE: 'record' })
      expect(result.code, result.output).toBe(0)
      expect(fake.stats.requests).toBe(CALLS)
      expect(snapshot(project)).toEqual(recorded)
    }, 300_000)

    it('replays in CI with the judge stopped: both shards pass with 0 calls and the merged report counts replays', async () => {
      const stopped = await startFakeJudge()
      const deadURL = stopped.baseURL
      await stopped.close() // nothing listens there any more: a single judge call would fail the run
      const { results, merged } = await shards({ ...judgeEnv(deadURL), CI: 'true' })
      for (const r of results) expect(r.code, r.output).toBe(0)
      expect(merged.run.mode).toBe('replay')
      expectConsistentTotals(merged)
      expect(merged.run.totals).toMatchObject({ judgeCalls: 0, cachedCalls: CALLS, tokens: 0, costUsd: 0 })
      expect(
        verdictsOf(merged)
          .filter((v) => v.judge)
          .every((v) => v.judge!.cached),
      ).toBe(true)
      expect(snapshot(project)).toEqual(recorded)
    }, 300_000)

    it('a changed answer misses in CI, naming the tests; re-recording shows the flip in a few named lines', async () => {
      fake.reset()
      const ci = await run(project, [...args], { ...judgeEnv(), CI: 'true', AGENT_REFUND: '$45' })
      expect(ci.code, ci.output).toBe(1)
      expect(fake.stats.requests).toBe(0)
      expect(ci.output).toMatch(
        /no recorded verdict for correctness \(test "refund answer is correct" › toBeCorrect\) in /,
      )
      expect(ci.output).toMatch(
        /no recorded verdict for span-diagnosis \(test "support agent run has no failing spans" › toHaveNoFailingSpans › span 1\.\d+ (llm:chat gpt-4o-mini|tool:execute_tool lookup_refund)\) in /,
      )

      // The base for `report diff`: a clean run's report (replayed, 0 calls), before the answer changes.
      const base = await run(project, [...args], { ...judgeEnv(), CI: 'true', AV_REPORT: 'reports/base.json' })
      expect(base.code, base.output).toBe(0)

      const local = await run(project, [...args], { ...judgeEnv(), AGENT_REFUND: '$45' })
      expect(local.code, local.output).toBe(1) // the regression is caught
      expect(local.output).toContain(WRONG_REFUND)
      // Only what the new answer reaches is judged again: the correctness call, the refund lookup and the closing chat.
      expect(fake.stats.requests).toBe(3)
      const after = snapshot(project)
      const { removed, added } = lineDiff(recorded['answers.test.ts.json'], after['answers.test.ts.json'])
      expect(removed).toEqual([])
      expect(added.length).toBeLessThanOrEqual(16)
      const text = added.join('\n')
      expect(text).toContain('"test": "refund answer is correct", "matcher": "toBeCorrect"')
      expect(text).toMatch(
        /\{"metric":"correctness","outcome":"fail","score":"0\/1","threshold":"min 1","reason":"The answer says \$45 was refunded; the refund issued was \$40\."\}/,
      )

      const report = await readReport(join(project, 'agent-verdict-report.json'))
      expectConsistentTotals(report)
      expect(report.run.totals).toMatchObject({ judgeCalls: 3, cachedCalls: CALLS - 3 })
      expect(
        report.tests
          .filter((t) => t.state === 'fail')
          .map((t) => t.name)
          .sort(),
      ).toEqual([expect.stringContaining('refund answer is correct'), 'support agent run has no failing spans'])

      // `report diff` between the two runs' artifacts: span ids are new in every capture, yet the trace test's
      // regression is named by test and span, and the tests that did not change are not listed.
      const diff = await run(
        project,
        [cli(), 'report', 'diff', 'reports/base.json', 'agent-verdict-report.json', '--fail-on', 'regression'],
        {},
      )
      expect(diff.code, diff.output).toBe(1)
      expect(diff.output, diff.output).toMatch(
        /flipped {2}agent-trace\.test\.ts › support agent run has no failing spans › toHaveNoFailingSpans › 1\.\d+ tool:execute_tool lookup_refund › span\.reasoning_integrity: pass [\d.]+ → fail [\d.]+ — regression/,
      )
      expect(diff.output).toMatch(
        /flipped {2}answers\.test\.ts › refund answer is correct › toBeCorrect › correctness: pass/,
      )
      expect(diff.output).not.toContain('chart answers')
      expect(diff.output).not.toContain('a wrong invoice total')
      // Only the two tests that changed appear (the trace test's later assertions did not run: removed).
      for (const line of diff.output.split('\n').filter((l) => /^(flipped|score|new|removed) /.test(l)))
        expect(line).toMatch(
          / (agent-trace\.test\.ts › support agent run|answers\.test\.ts › refund answer is correct) /,
        )
    }, 300_000)
  })
}
