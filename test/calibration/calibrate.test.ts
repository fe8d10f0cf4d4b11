// `agent-verdict calibrate` against the fake judge with scripted answers, so the expected agreement is
// known in advance and computed by hand here.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { calibrateCommand } from '../../src/cli/calibrate'
import { renderCalibration } from '../../src/calibration/render'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'

let fake: FakeJudge
beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [
      {
        name: 'no',
        when: { contains: 'JUDGE-SAYS-NO', schemaName: 'correctness_verdict' },
        respond: { verdict: 'fail', reason: 'the judge was told to say no' },
      },
      ...[1, 2, 3, 4, 5].map((n) => ({
        name: `q${n}`,
        when: { contains: `JUDGE-SAYS-${n}`, schemaName: 'quality_verdict' },
        respond: { score: n, reason: `scripted ${n}/5` },
      })),
    ],
  })
})
afterAll(() => fake.close())

function run(args: string[], env: Record<string, string> = {}) {
  const out = { stdout: '', stderr: '' }
  return calibrateCommand(args, {
    stdout: { write: (t: string) => (out.stdout += t) },
    stderr: { write: (t: string) => (out.stderr += t) },
    env: { AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`, AGENT_VERDICT_MODE: 'auto', ...env },
  }).then((code) => ({ code, ...out }))
}

// Ten correctness cases: (human, judge) = (1,1)×5, (1,0)×2, (0,1)×1, (0,0)×2.
const PAIRS: Array<[number, number]> = [
  [1, 1],
  [1, 1],
  [1, 1],
  [1, 1],
  [1, 1],
  [1, 0],
  [1, 0],
  [0, 1],
  [0, 0],
  [0, 0],
]
// Four quality cases: human 5, 4, 3, 2; judge 5, 3, 3, 1.
const QUALITY: Array<[number, number]> = [
  [5, 5],
  [4, 3],
  [3, 3],
  [2, 1],
]

function labelledFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'av-calibrate-'))
  const cases = [
    ...PAIRS.map(([human, judge], i) => ({
      id: `c${i + 1}`,
      instruction: 'Which region leads?',
      reference: 'North America',
      response: `Answer ${i + 1}${judge === 0 ? ' JUDGE-SAYS-NO' : ''}`,
      labels: { correctness: human },
    })),
    ...QUALITY.map(([human, judge], i) => ({
      id: `q${i + 1}`,
      instruction: 'Summarise the chart.',
      response: `Summary ${i + 1} JUDGE-SAYS-${judge}`,
      labels: { quality: human },
    })),
  ]
  const path = join(dir, 'labelled.json')
  writeFileSync(path, JSON.stringify({ about: 'scripted', cases }))
  return path
}

describe('agent-verdict calibrate', () => {
  it("prints Cohen's κ exactly as computed by hand, the matrix and each disagreement with the judge's reason", async () => {
    // By hand: po = 7/10; humans say pass 7/10, the judge 6/10, so pe = 0.7·0.6 + 0.3·0.4 = 0.54; κ = (0.7 − 0.54)/(1 − 0.54).
    const po = 7 / 10
    const pe = 0.7 * 0.6 + 0.3 * 0.4
    const kappa = (po - pe) / (1 - pe)
    const file = labelledFile()
    fake.reset()
    const { code, stdout, stderr } = await run([file, '--metric', 'correctness'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(fake.stats.requests).toBe(10)
    expect(stdout).toContain(`  agreement 0.700\n  Cohen's κ ${kappa.toFixed(3)} (fair)\n`)
    expect(kappa.toFixed(3)).toBe('0.348')
    expect(stdout).toContain('  human      0    1\n  0          2    1\n  1          2    5\n')
    expect(stdout).toContain(
      '    c6: human 1, judge 0 — the judge was told to say no\n    c7: human 1, judge 0 — the judge was told to say no\n    c8: human 0, judge 1 —',
    )
  })

  it('gives weighted κ and Spearman for 1–5 in --json, and replays a second run with 0 judge calls', async () => {
    const file = labelledFile()
    fake.reset()
    const first = await run([file, '--json'])
    expect(first.code).toBe(0)
    expect(fake.stats.requests).toBe(14)
    const quality = JSON.parse(first.stdout).metrics.find((m: { metric: string }) => m.metric === 'quality')
    // By hand (population moments of human x = 5,4,3,2 and judge y = 5,3,3,1): cov 1.5, var x 1.25, var y 2,
    // (x̄ − ȳ)² 0.25 → weighted κ = 2·1.5/(1.25 + 2 + 0.25) = 6/7. Ranks x 4,3,2,1 and y 4,2.5,2.5,1 → ρ = 4.5/√(5·4.5) = 3/√10.
    expect(quality.weightedKappa).toBeCloseTo(6 / 7, 12)
    expect(quality.spearman).toBeCloseTo(3 / Math.sqrt(10), 12)
    expect(quality.agreement).toBe(0.5)
    expect(quality.disagreements.map((d: { id: string }) => d.id)).toEqual(['q2', 'q4'])
    expect(existsSync(join(file, '..', '__verdicts__', 'labelled.json.json'))).toBe(true)

    fake.reset()
    const second = await run([file, '--json'], { AGENT_VERDICT_MODE: 'replay' })
    expect(second.code).toBe(0)
    expect(fake.stats.requests).toBe(0)
    const again = JSON.parse(second.stdout).metrics
    expect(again.map((m: { cachedCalls: number; judgeCalls: number }) => [m.judgeCalls, m.cachedCalls])).toEqual([
      [0, 10],
      [0, 4],
    ])
    expect(again.find((m: { metric: string }) => m.metric === 'quality').weightedKappa).toBeCloseTo(6 / 7, 12)
  })

  it('reads the worked example (the shared multimodal cases with their images)', async () => {
    const example = fileURLToPath(new URL('../../examples/calibration/multimodal-cases.json', import.meta.url))
    const cassette = join(mkdtempSync(join(tmpdir(), 'av-calibrate-ex-')), 'verdicts.json')
    fake.reset()
    const { code, stdout } = await run([example, '--metric', 'instruction_following', '--cassette', cassette])
    expect(code).toBe(0)
    // The fake judge passes everything not scripted, so the judge column is all 1: κ is 0 when humans vary.
    expect(stdout).toMatch(/^instruction-following \(binary, 21 cases; 21 judge calls, 0 replayed\)/)
    expect(stdout).toContain("Cohen's κ 0.000 (slight)")
    // Instruction Following never sees the image; correctness does, loaded from images/ beside the file.
    expect(fake.calls.every((c) => c.imageCount === 0)).toBe(true)
    fake.reset()
    const withImages = await run([example, '--metric', 'correctness', '--cassette', cassette])
    expect(withImages.code).toBe(0)
    expect(fake.calls).toHaveLength(21)
    expect(fake.calls.every((c) => c.imageCount === 1)).toBe(true)
  })

  it('lists a case the judge could not judge instead of counting it as a disagreement', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-calibrate-unj-'))
    const file = join(dir, 'cases.json')
    const cases = [
      { id: 'ok-1', instruction: 'Q?', reference: 'A', response: 'A', labels: { correctness: 1 } },
      { id: 'ok-2', instruction: 'Q?', reference: 'A', response: 'B JUDGE-SAYS-NO', labels: { correctness: 0 } },
      { id: 'broken', instruction: 'Q?', reference: 'A', response: 'A BROKEN-REPLY', labels: { correctness: 0 } },
    ]
    writeFileSync(file, JSON.stringify({ cases }))
    fake.setFaults([{ type: 'malformed-json', when: { contains: 'BROKEN-REPLY' } }])
    try {
      const { code, stdout } = await run([file, '--json', '--mode', 'live'])
      // Figures over 2 of 3 cases are not the file's: exit 3, the judge gave no verdict for one.
      expect(code).toBe(3)
      const [m] = JSON.parse(stdout).metrics
      expect(m.n).toBe(2)
      expect(m.agreement).toBe(1)
      expect(m.disagreements).toEqual([])
      expect(m.unjudgeable).toEqual([{ id: 'broken', reason: expect.any(String) }])
    } finally {
      fake.setFaults([])
    }
  })

  it('says what to do with no judge, an unknown metric, a bad label or a malformed file', async () => {
    const file = labelledFile()
    expect((await run([file], { AGENT_VERDICT_JUDGE: '' })).stderr).toContain(
      'no judge: pass --judge <spec> or set AGENT_VERDICT_JUDGE',
    )
    expect((await run([file, '--metric', 'helpfulness'])).stderr).toContain(
      'unknown metric "helpfulness"; choose from correctness, faithfulness, instruction-following, quality',
    )
    const dir = mkdtempSync(join(tmpdir(), 'av-calibrate-bad-'))
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({ cases: [{ id: 'a', response: 'x', labels: { quality: 7 } }] }),
    )
    expect((await run([join(dir, 'bad.json')])).stderr).toContain(
      'case "a" has quality = 7; a quality label is an integer 1–5',
    )
    writeFileSync(
      join(dir, 'dup.json'),
      JSON.stringify({
        cases: [
          { id: 'a', response: 'x', labels: {} },
          { id: 'a', response: 'y', labels: {} },
        ],
      }),
    )
    expect((await run([join(dir, 'dup.json')])).stderr).toContain('two cases with id "a"')
    writeFileSync(join(dir, 'shape.json'), JSON.stringify([{ id: 'a' }]))
    expect((await run([join(dir, 'shape.json')])).stderr).toContain('is not a labelled file at (root)')
  })
})

describe('renderCalibration', () => {
  it('keeps a hostile judge reason on one line without terminal escapes', () => {
    const text = renderCalibration([
      {
        metric: 'correctness',
        scale: 'binary',
        n: 1,
        agreement: 0,
        kappa: Number.NaN,
        confusion: {
          categories: [0, 1],
          matrix: [
            [0, 1],
            [0, 0],
          ],
          n: 1,
        },
        disagreements: [{ id: 'x', label: 0, judge: 1, reason: 'ok\n\u001b[2K✓ all pass\rfake' }],
        unjudgeable: [],
        judgeCalls: 1,
        cachedCalls: 0,
      },
    ])
    expect(text).toContain('x: human 0, judge 1 — ok [2K✓ all pass fake')
    expect(text).not.toContain('\u001b')
    expect(text).toContain(
      "Cohen's κ undefined (undefined: neither rater varied: every human label is 0, the judge gave 1 to every case)",
    )
  })
})
