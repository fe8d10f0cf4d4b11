import { describe, expect, it } from 'vitest'
import { buildReport } from '../../src/report/artifact'
import { diffVerdicts, itemsFromReport, type DiffItem } from '../../src/report/diff'
import type { ReportTest } from '../../src/verdict/report'
import { renderDiffMarkdown, renderDiffText } from '../../src/report/render-diff'
import { wilsonInterval } from '../../src/stats/interval'

function trialItem(key: string, passes: number, k: number, outcome: DiffItem['outcome']): DiffItem {
  const ci = wilsonInterval(passes, k)
  return {
    key,
    outcome,
    score: ci.rate,
    tokens: 0,
    costUsd: 0,
    trials: { k, passes, rate: ci.rate, lower: ci.lower, upper: ci.upper },
  }
}

describe('diffVerdicts with trials', () => {
  it('labels a flip inside both Wilson intervals noise, not a regression', () => {
    // 4/5 → 3/5: each rate lies inside the other's 95% interval ([0.38, 0.96] and [0.23, 0.88]).
    const d = diffVerdicts(
      { label: 'a', items: [trialItem('t › m', 4, 5, 'pass')] },
      { label: 'b', items: [trialItem('t › m', 3, 5, 'fail')] },
    )
    expect(d.flipped.map((c) => c.label)).toEqual(['noise'])
    expect(d.regressions).toBe(0)
    expect(renderDiffText(d)).toContain('flipped  t › m: pass 4/5 [0.3755, 0.9638] → fail 3/5 [0.2307, 0.8824] — noise')
  })

  it('keeps a change outside the intervals a regression', () => {
    // 20/20 → 5/20: 1 is outside [0.11, 0.47] and 0.25 outside [0.84, 1].
    const d = diffVerdicts(
      { label: 'a', items: [trialItem('t › m', 20, 20, 'pass')] },
      { label: 'b', items: [trialItem('t › m', 5, 20, 'fail')] },
    )
    expect(d.flipped.map((c) => c.label)).toEqual(['regression'])
    expect(d.regressions).toBe(1)
  })

  it('labels a score change within the intervals noise', () => {
    const d = diffVerdicts(
      { label: 'a', items: [trialItem('t › m', 9, 10, 'pass')] },
      { label: 'b', items: [trialItem('t › m', 8, 10, 'pass')] },
    )
    expect(d.scoreChanges.map((c) => c.label)).toEqual(['noise'])
  })

  const verdictOf = (outcome: 'pass' | 'fail') =>
    ({
      metric: 'correctness',
      level: 'output',
      scale: 'binary',
      raw: outcome === 'pass' ? 1 : 0,
      score: outcome === 'pass' ? 1 : 0,
      threshold: 1,
      pass: outcome === 'pass',
      outcome,
      reason: outcome,
    }) as const
  const reportOf = (tests: ReportTest[]) => buildReport({ tests, startedAt: new Date(0), judge: null, mode: 'auto' })

  it('numbers repeated metrics of a test instead of letting one hide the other', () => {
    const verdict = verdictOf('pass')
    const items = itemsFromReport(reportOf([{ file: 'a.ts', name: 't', state: 'pass', verdicts: [verdict, verdict] }]))
    expect(items.map((i) => i.key)).toEqual(['a.ts › t', 'a.ts › t › correctness', 'a.ts › t › correctness #2'])
  })

  it('numbers two tests of one file that share a full name, so a regression of the first is not hidden', () => {
    // describe('refund') > test('policy') and test('refund > policy'): one full name, two tests.
    const report = (first: 'pass' | 'fail') =>
      reportOf([
        { file: 'a.ts', name: 'refund > policy', state: first, verdicts: [verdictOf(first)] },
        { file: 'a.ts', name: 'refund > policy', state: 'pass', verdicts: [verdictOf('pass')] },
      ])
    const d = diffVerdicts(
      { label: 'base', items: itemsFromReport(report('pass')) },
      { label: 'head', items: itemsFromReport(report('fail')) },
    )
    expect(d.regressions).toBe(1)
    expect(d.flipped.map((c) => c.key)).toEqual(['a.ts › refund > policy › correctness'])
  })
})

describe('renderDiffMarkdown', () => {
  it('keeps hostile test names from breaking the table or injecting markup', () => {
    const key = 'a.ts › t | <img src=x onerror=alert(1)>\n| injected | row | › m'
    const d = diffVerdicts(
      { label: 'a', items: [] },
      { label: 'b', items: [{ key, outcome: 'pass', score: 1, tokens: 0, costUsd: 0 }] },
    )
    const md = renderDiffMarkdown(d)
    expect(md).not.toContain('<img')
    expect(md).toContain('a.ts › t \\| &lt;img src=x onerror=alert(1)&gt; \\| injected \\| row \\| › m')
    expect(md.split('\n').filter((l) => l.startsWith('| new'))).toHaveLength(1)
  })

  it('a lone carriage return, an escaped pipe, an image or a link in a name stays inside its cell, as text', () => {
    const key =
      'a.ts › x\\| forged \r| 🟢 flipped | all tests | ![pixel](https://evil.test/p.png) [details](https://evil.test)'
    const d = diffVerdicts(
      { label: 'a', items: [] },
      { label: 'b', items: [{ key, outcome: 'pass', score: 1, tokens: 0, costUsd: 0 }] },
    )
    const md = renderDiffMarkdown(d)
    const rows = md.split('\n').filter((l) => l.startsWith('| new'))
    expect(rows).toHaveLength(1)
    expect(md).not.toMatch(/(^|[^\\])!\[pixel\]|(^|[^\\])\[details\]/)
  })
})

describe('renderDiffText', () => {
  it('shows control characters in names as stand-ins: a name cannot erase the regression line above it', () => {
    const key = 'term\u001b[1A\u001b[2K\r0 flipped (0 regressions)'
    const d = diffVerdicts(
      { label: 'a', items: [{ key, outcome: 'pass', score: 1, tokens: 0, costUsd: 0 }] },
      { label: 'b', items: [{ key, outcome: 'fail', score: 0, tokens: 0, costUsd: 0 }] },
    )
    const text = renderDiffText(d)
    expect(text).not.toMatch(/[\u001b\r]/)
    expect(text).toContain('term␛[1A␛[2K␍0 flipped (0 regressions)')
  })
})
