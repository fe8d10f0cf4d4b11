import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { reportCommand } from '../../src/cli/report'

const fixtures = fileURLToPath(new URL('../fixtures/diff', import.meta.url))
const f = (name: string) => join(fixtures, name)

function capture() {
  const out = { stdout: '', stderr: '' }
  return {
    out,
    io: { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) } },
  }
}

async function diff(args: string[]) {
  const { out, io } = capture()
  const code = await reportCommand(['diff', ...args], io)
  return { code, ...out }
}

// See test/fixtures/diff/README.md: a flip, a score drop, a new and a removed assertion.
describe('agent-verdict report diff', () => {
  it('reports of two runs: exactly the flip, the drop, the new and the removed assertion', async () => {
    const { code, stdout, stderr } = await diff([f('base-report.json'), f('head-report.json')])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toBe(
      [
        `verdict diff: ${f('base-report.json')} → ${f('head-report.json')}`,
        'flipped  test/chart.test.ts › chart answer is grounded › faithfulness: pass 1 → fail 0 — regression',
        'score    test/chart.test.ts › chart answer is grounded › quality: 1 → 0.75 (-0.25) — drop',
        'new      test/chart.test.ts › states the trend › correctness: pass 1',
        'removed  test/chart.test.ts › names the legend › correctness: pass 1',
        'tokens   3860 → 3960 (+100)',
        'cost     $0.0019 → $0.0019 (+$0)',
        '1 flipped (1 regression), 1 score change, 1 new, 1 removed',
        '',
      ].join('\n'),
    )
  })

  it('cassette folders: the same changes, keyed by test file › metric › entry key', async () => {
    const { code, stdout } = await diff([f('base-cassettes'), f('head-cassettes')])
    expect(code).toBe(0)
    expect(stdout.split('\n').slice(1)).toEqual([
      'flipped  test/chart.test.ts › faithfulness › 2b93b177b554: pass 1 → fail 0 — regression',
      'score    test/chart.test.ts › quality › acef2c15bcd3: 1 → 0.75 (-0.25) — drop',
      'new      test/chart.test.ts › correctness › 2ab022d82080: pass 1',
      'removed  test/chart.test.ts › correctness › ba29297b6c4f: pass 1',
      'tokens   3860 → 3960 (+100)',
      'cost     $0.0019 → $0.0019 (+$0)',
      '1 flipped (1 regression), 1 score change, 1 new, 1 removed',
      '',
    ])
  })

  it('--fail-on regression exits 1 on the flip; no change between a run and itself exits 0 either way', async () => {
    expect((await diff([f('base-report.json'), f('head-report.json'), '--fail-on', 'regression'])).code).toBe(1)
    const same = await diff([f('head-report.json'), f('head-report.json'), '--fail-on', 'change'])
    expect(same.code).toBe(0)
    expect(same.stdout).toContain('0 flipped (0 regressions), 0 score changes, 0 new, 0 removed')
    // Head → base is a fix, not a regression.
    const back = await diff([f('head-report.json'), f('base-report.json'), '--fail-on', 'regression'])
    expect(back.code).toBe(0)
    expect(back.stdout).toContain('faithfulness: fail 0 → pass 1 — fix')
    expect((await diff([f('head-report.json'), f('base-report.json'), '--fail-on', 'change'])).code).toBe(1)
  })

  it('--json carries every change; --markdown is a table for a PR comment', async () => {
    const json = JSON.parse((await diff([f('base-report.json'), f('head-report.json'), '--json'])).stdout)
    expect(json.flipped.map((c: { key: string; label: string }) => [c.key, c.label])).toEqual([
      ['test/chart.test.ts › chart answer is grounded › faithfulness', 'regression'],
    ])
    expect(json.removed.map((i: { key: string }) => i.key)).toEqual([
      'test/chart.test.ts › names the legend › correctness',
    ])
    expect(json.tokens).toEqual({ base: 3860, head: 3960 })
    const md = (await diff([f('base-report.json'), f('head-report.json'), '--markdown'])).stdout
    expect(md).toContain(
      '| 🔴 flipped | test/chart.test.ts › chart answer is grounded › faithfulness | pass 1 | fail 0 | regression |',
    )
    expect(md).toContain('| 🔻 score | test/chart.test.ts › chart answer is grounded › quality | 1 | 0.75 | drop |')
    expect(md).toContain('| new | test/chart.test.ts › states the trend › correctness | – | pass 1 | |')
    expect(md).toContain('| removed | test/chart.test.ts › names the legend › correctness | pass 1 | – | |')
  })

  it('--base-ref reads the base cassettes with git show in a temporary repository', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'av-diff-git-'))
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: repo,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@e',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@e',
        },
      })
    git('init', '-q', '-b', 'main')
    cpSync(f('base-cassettes'), repo, { recursive: true })
    git('add', '.')
    git('commit', '-qm', 'base verdicts')
    git('checkout', '-qb', 'feature')
    cpSync(f('head-cassettes'), repo, { recursive: true, force: true })
    const { code, stdout } = await diff(['--base-ref', 'main', join(repo, 'test'), '--fail-on', 'regression'])
    expect(code).toBe(1)
    expect(stdout.split('\n')).toEqual([
      `verdict diff: main:test → ${join(repo, 'test')}`,
      'flipped  chart.test.ts › faithfulness › 2b93b177b554: pass 1 → fail 0 — regression',
      'score    chart.test.ts › quality › acef2c15bcd3: 1 → 0.75 (-0.25) — drop',
      'new      chart.test.ts › correctness › 2ab022d82080: pass 1',
      'removed  chart.test.ts › correctness › ba29297b6c4f: pass 1',
      'tokens   3860 → 3960 (+100)',
      'cost     $0.0019 → $0.0019 (+$0)',
      '1 flipped (1 regression), 1 score change, 1 new, 1 removed',
      '',
    ])
    // A committed report file works the same way: the base is that file at the ref.
    cpSync(f('base-report.json'), join(repo, 'report.json'))
    git('add', 'report.json')
    git('commit', '-qm', 'base report')
    cpSync(f('head-report.json'), join(repo, 'report.json'))
    const fromReport = await diff(['--base-ref', 'feature', join(repo, 'report.json')])
    expect(fromReport.stdout.split('\n').slice(0, 2)).toEqual([
      `verdict diff: feature:report.json → ${join(repo, 'report.json')}`,
      'flipped  test/chart.test.ts › chart answer is grounded › faithfulness: pass 1 → fail 0 — regression',
    ])
    const bad = await diff(['--base-ref', 'no-such-branch', join(repo, 'test')])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('unknown git ref "no-such-branch"')
  })

  it('says what to pass when a side is missing, malformed or of another format version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-diff-bad-'))
    expect((await diff([f('base-report.json')])).stderr).toContain('diff takes a base and a head')
    expect((await diff([join(dir, 'nope.json'), f('head-report.json')])).stderr).toContain(
      'does not exist; pass a report JSON, a folder with __verdicts__ cassettes',
    )
    writeFileSync(join(dir, 'old.json'), '{"schemaVersion": 0}')
    expect((await diff([join(dir, 'old.json'), f('head-report.json')])).stderr).toContain(
      'has schemaVersion 0, this version reads 1',
    )
    cpSync(f('base-cassettes'), join(dir, 'c'), { recursive: true })
    writeFileSync(join(dir, 'c/test/__verdicts__/chart.test.ts.json'), '{"version": 9, "entries": []}')
    expect((await diff([join(dir, 'c'), f('head-cassettes')])).stderr).toContain(
      'has format version 9, newer than this agent-verdict reads (2) — upgrade agent-verdict',
    )
    expect((await diff([f('base-report.json'), f('head-report.json'), '--fail-on', 'worse'])).code).toBe(2)
  })

  it('format-2 cassettes: a changed answer to the same test is a flip named by test and metric, the latest recording counting', async () => {
    const entry = (key: string, outcome: 'pass' | 'fail', score: string, recordedAt: string, reason: string) => ({
      test: 'refund > names the amount',
      matcher: 'toBeCorrect',
      verdicts: [{ metric: 'correctness', outcome, score, threshold: 'min 4', reason }],
      judged: 'Your refund of $40',
      metric: 'correctness',
      provider: 'openai',
      model: 'gpt-4.1',
      promptVersion: 'correctness@2',
      output: { reasoning: reason, score: Number(score[0]) },
      usage: { inputTokens: 10, outputTokens: 2 },
      costUsd: 0,
      recordedAt,
      key: key.repeat(64),
    })
    const side = (entries: unknown[]) => {
      const dir = mkdtempSync(join(tmpdir(), 'av-diff-v2-'))
      cpSync(f('base-cassettes'), dir, { recursive: true })
      writeFileSync(join(dir, 'test/__verdicts__/chart.test.ts.json'), JSON.stringify({ version: 2, entries }))
      return dir
    }
    const base = side([entry('a', 'pass', '5/5', '2026-01-01T00:00:00.000Z', 'matches the reference')])
    // The old reply is still in the file (kept until pruned); the newer recording is the one that counts.
    const head = side([
      entry('a', 'pass', '5/5', '2026-01-01T00:00:00.000Z', 'matches the reference'),
      entry('b', 'fail', '2/5', '2026-02-01T00:00:00.000Z', 'says $45, not $40'),
    ])
    const { code, stdout } = await diff([base, head, '--fail-on', 'regression'])
    expect(code).toBe(1)
    expect(stdout).toContain(
      'flipped  test/chart.test.ts › refund > names the amount › correctness: pass 1 → fail 0.25 — regression',
    )
    expect(stdout).not.toMatch(/^(new|removed) /m)
  })
})
