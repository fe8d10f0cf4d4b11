import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildReport } from '../../src/report/artifact'
import {
  appendGithubSummary,
  escapeMarkdownCell,
  GITHUB_SUMMARY_LIMIT,
  renderGithubSummary,
} from '../../src/report/render-github-summary'
import type { ReportTest } from '../../src/verdict/report'
import { outputVerdicts, sampleTests } from './cases'

const report = (tests: ReportTest[]) =>
  buildReport({
    tests,
    startedAt: '2026-03-01T10:00:00Z',
    runner: 'jest',
    judge: 'openai:gpt-4.1-mini',
    mode: 'replay',
  })

describe('renderGithubSummary', () => {
  it('has a totals table and one row per failing or unjudgeable verdict, spans named with their path', () => {
    const md = renderGithubSummary(report(sampleTests()))
    expect(md).toContain(
      '| tests | failed tests | assertions | failed | verdicts | judged fail | unjudgeable | judge calls | replayed | tokens | cost |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n| 3 | 3 | 4 | 3 | 9 | 7 | 1 | 2 | 1 | 4,280 | $0.0006 |',
    )
    expect(md).toContain('3 tests with verdicts · judge openai:gpt-4.1-mini · mode replay')
    const rows = md.split('\n').filter((l) => /^\| [✗?] \|/.test(l))
    expect(rows).toHaveLength(8) // 1 faithfulness + 1 unjudgeable plan + 6 gold spans
    expect(md).toContain(
      '| ✗ | test/chart.test.ts › chart answer is grounded in the chart | faithfulness | output | 2/5, min 3.4 | fail | The answer cites a 2019 figure that the chart does not contain. |',
    )
    expect(md).toMatch(
      /\| ✗ \| test\/trail\.test\.ts › .* \| trail-gold \(Authentication Errors\) \| tool:VisitTool \(id ee7608b3…, path main › … › ToolCallingAgent\.run › Step 4 › VisitTool\) \|/,
    )
    expect(md).toContain(
      '| ? | test/agent.test.ts › research agent &gt; plans efficiently | plan-efficiency | agent | unjudgeable |',
    )
  })

  it('says all passed when nothing failed', () => {
    expect(
      renderGithubSummary(report([{ file: 'a', name: 'b', state: 'pass', verdicts: [outputVerdicts()[1]] }])),
    ).toContain('All 1 assertion passed.')
  })

  it('an all-green run with .not assertions lists nothing as failing; a failing .not is listed with what the judge said', () => {
    const [judgedFail, judgedPass] = outputVerdicts()
    const not = (passed: boolean) => ({
      id: 'toBeFaithfulToImage#1',
      matcher: 'toBeFaithfulToImage',
      negated: true,
      passed,
    })
    const green = renderGithubSummary(
      report([{ file: 'a', name: 'b', state: 'pass', verdicts: [{ ...judgedFail, assertion: not(true) }] }]),
    )
    expect(green).toContain('| 1 | 0 | 1 | 1 | 0 |')
    expect(green).toContain('All 1 assertion passed.')
    expect(green).not.toContain('| ✗ |')
    const red = renderGithubSummary(
      report([{ file: 'a', name: 'b', state: 'fail', verdicts: [{ ...judgedPass, assertion: not(false) }] }]),
    )
    expect(red).toContain(
      '| ✗ | a › b | instruction-following | output | 1/1, min 0.5 | judged pass, expected not | States the region',
    )
  })

  it('escapes pipes, newlines and HTML so a reason cannot break the table or inject markup', () => {
    expect(escapeMarkdownCell('a | b\n<script>x</script> *bold* [link](http://x)')).toBe(
      'a \\| b &lt;script&gt;x&lt;/script&gt; \\*bold\\* \\[link\\](http://x)',
    )
  })

  it('stays under the byte budget by cutting rows and pointing to the artifact', () => {
    const many: ReportTest[] = Array.from({ length: 3000 }, (_, i) => ({
      file: `test/f${i}.test.ts`,
      name: `case ${i}`,
      state: 'fail',
      verdicts: [{ ...outputVerdicts()[0], reason: `reason ${i} `.repeat(100) }],
    }))
    const md = renderGithubSummary(report(many), { maxBytes: 200_000 })
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(200_000)
    const shown = md.split('\n').filter((l) => l.startsWith('| ✗ |')).length
    expect(shown).toBeGreaterThan(100)
    expect(md).toContain(
      `_… and ${(3000 - shown).toLocaleString('en-US')} more verdicts of failed assertions — see \`agent-verdict-report.json\`._`,
    )
    // The default budget keeps even a huge run under GitHub's 1 MiB limit.
    expect(Buffer.byteLength(renderGithubSummary(report(many)))).toBeLessThan(GITHUB_SUMMARY_LIMIT)
  })
})

describe('appendGithubSummary', () => {
  it('appends to the $GITHUB_STEP_SUMMARY file, keeping what earlier steps wrote', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'av-gh-')), 'summary.md')
    writeFileSync(path, '# earlier step\n')
    expect(await appendGithubSummary(report(sampleTests()), { GITHUB_STEP_SUMMARY: path })).toBe(path)
    expect(await appendGithubSummary(report(sampleTests()), { GITHUB_STEP_SUMMARY: path })).toBe(path)
    const text = readFileSync(path, 'utf8')
    expect(text.startsWith('# earlier step\n## agent-verdict')).toBe(true)
    expect(text.split('## agent-verdict')).toHaveLength(3)
  })

  it('does nothing without the variable, and does not overflow a file that is already nearly full', async () => {
    expect(await appendGithubSummary(report(sampleTests()), {})).toBeNull()
    const path = join(mkdtempSync(join(tmpdir(), 'av-gh-')), 'summary.md')
    writeFileSync(path, 'x'.repeat(GITHUB_SUMMARY_LIMIT - 2048))
    await appendGithubSummary(report(sampleTests()), { GITHUB_STEP_SUMMARY: path })
    expect(readFileSync(path).length).toBe(GITHUB_SUMMARY_LIMIT - 2048)
  })
})
