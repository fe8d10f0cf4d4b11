// Oracle mode: the judge path with a judge that answers from the gold. On traces where nothing is lost it
// must reach the perfect-prediction ceiling; what selection and truncation hide must be listed with why.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { oraclePredictor } from '../../src/bench/oracle-predictor'
import { scoreTrailDirs } from '../../src/bench/score-dirs'
import { runTrailBench } from '../../src/bench/trail-harness'
import { cassetteKey } from '../../src/cassette/key'
import { benchCommand } from '../../src/cli/bench'
import { SpanJudgementSchema } from '../../src/diagnosis/span-judgement'
import { parseTrace } from '../../src/trace/parse'
import { TRAIL_DIR } from './trail-dir'

const tmp = mkdtempSync(join(tmpdir(), 'oracle-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const GAIA = ['0ebe673d64647ec44c370638b82d3c78', 'f39aec9b8a61fd2aaed5849cc00bc165']
const SWE = ['72822db6e120878d916b515c2501246b']
const PLAN_SPAN = '29f141a7c2556206' // an LLM span of GAIA[0]
const STEP_SPAN = '80036c1d5ca204f4' // a CHAIN span ("Step 1") of GAIA[0]

function subset(name: string, gaia: string[], swe: string[]): string {
  const dir = join(tmp, name)
  for (const [traces, gold, ids] of [
    ['GAIA', 'annotations_gaia', gaia],
    ['SWE_Bench', 'annotations_swe_bench', swe],
  ] as const) {
    mkdirSync(join(dir, traces), { recursive: true })
    mkdirSync(join(dir, gold), { recursive: true })
    for (const id of ids) {
      cpSync(join(TRAIL_DIR, traces, `${id}.json`), join(dir, traces, `${id}.json`))
      cpSync(join(TRAIL_DIR, gold, `${id}.json`), join(dir, gold, `${id}.json`))
    }
  }
  return dir
}

/** GAIA[0] with the plan span's output replaced by `text`, and one gold error quoting `evidence` there (or at `location`). */
function constructed(name: string, text: string, evidence: string, location = PLAN_SPAN): string {
  const dir = subset(name, [GAIA[0]], [])
  const file = join(dir, 'GAIA', `${GAIA[0]}.json`)
  const trace = JSON.parse(readFileSync(file, 'utf8'))
  const visit = (s: {
    span_id: string
    span_attributes: Record<string, unknown>
    child_spans?: unknown[]
  }): boolean => {
    if (s.span_id === PLAN_SPAN) {
      s.span_attributes['llm.output_messages.0.message.content'] = text
      return true
    }
    return (s.child_spans ?? []).some((c) => visit(c as typeof s))
  }
  expect(trace.spans.some(visit)).toBe(true)
  writeFileSync(file, JSON.stringify(trace))
  const gold = {
    trace_id: GAIA[0],
    errors: [{ category: 'Language-only', location, evidence, description: 'constructed', impact: 'HIGH' }],
    scores: [],
  }
  writeFileSync(join(dir, 'annotations_gaia', `${GAIA[0]}.json`), JSON.stringify(gold))
  return dir
}

describe('oracle mode', () => {
  test('reaches the perfect-prediction ceiling on traces where nothing is lost, and lists no loss', async () => {
    const dir = subset('clean', GAIA, SWE)
    const run = await runTrailBench({ dir, mode: 'oracle', outDir: join(tmp, 'clean-out') })
    // The ceiling: the gold itself scored as predictions.
    for (const split of ['GAIA', 'SWE_Bench'] as const) {
      const goldAsPredictions = join(tmp, `clean-gold-${split}`)
      cpSync(join(dir, split === 'GAIA' ? 'annotations_gaia' : 'annotations_swe_bench'), goldAsPredictions, {
        recursive: true,
      })
      const ceiling = await scoreTrailDirs(run.splits[split]!.goldDir, goldAsPredictions)
      const oracle = run.splits[split]!
      expect(oracle.failures).toEqual([])
      expect(oracle.oracleLosses).toEqual([])
      expect(oracle.scores.files_processed).toBe(ceiling.files_processed)
      expect(oracle.scores.location_accuracy).toBeCloseTo(ceiling.location_accuracy, 10)
      expect(oracle.scores.joint_accuracy).toBeCloseTo(ceiling.joint_accuracy, 10)
      expect(oracle.scores.joint_accuracy).toBeGreaterThan(0)
    }
  }, 60_000)

  test('evidence in a truncated middle is listed as "truncated away" and not predicted', async () => {
    const evidence = 'The museum closed in 1987, so the answer is Paris.'
    const dir = constructed(
      'middle',
      `${'padding before the claim. '.repeat(8000)}${evidence}${' padding after the claim.'.repeat(8000)}`,
      evidence,
    )
    const run = await runTrailBench({ dir, mode: 'oracle', split: 'gaia', outDir: join(tmp, 'middle-out') })
    const gaia = run.splits.GAIA!
    expect(gaia.oracleLosses).toEqual([
      expect.objectContaining({
        traceId: GAIA[0],
        spanId: PLAN_SPAN,
        category: 'Language-only',
        reason: 'truncated away',
      }),
    ])
    const prediction = JSON.parse(readFileSync(join(gaia.predictionsDir, `${GAIA[0]}.json`), 'utf8'))
    expect(
      prediction.errors.filter(
        (e: { location: string; category: string }) => e.location === PLAN_SPAN && e.category === 'Language-only',
      ),
    ).toEqual([])
    expect(gaia.scores.joint_accuracy).toBe(0)
  }, 60_000)

  test('the same evidence at the head of the span survives the cut and is predicted (control)', async () => {
    const evidence = 'The museum closed in 1987, so the answer is Paris.'
    const dir = constructed('head', `${evidence}${' padding after the claim.'.repeat(16000)}`, evidence)
    const run = await runTrailBench({ dir, mode: 'oracle', split: 'gaia', outDir: join(tmp, 'head-out') })
    expect(run.splits.GAIA!.oracleLosses).toEqual([])
    expect(run.splits.GAIA!.scores.joint_accuracy).toBe(1)
  }, 60_000)

  test('two gold errors with their own quotes on one span are both predicted; a third on the same quote is lost as a second category on the same evidence', async () => {
    const claim = 'The museum closed in 1987, so the answer is Paris.'
    const skip = 'I will not check the archive.'
    const dir = constructed('two-quotes', `${claim} ${skip}`, claim)
    const gold = (category: string, evidence: string) => ({
      category,
      location: PLAN_SPAN,
      evidence,
      description: 'constructed',
      impact: 'HIGH',
    })
    writeFileSync(
      join(dir, 'annotations_gaia', `${GAIA[0]}.json`),
      JSON.stringify({
        trace_id: GAIA[0],
        errors: [gold('Language-only', claim), gold('Tool Selection Errors', skip), gold('Goal Deviation', claim)],
        scores: [],
      }),
    )
    const run = await runTrailBench({ dir, mode: 'oracle', split: 'gaia', outDir: join(tmp, 'two-quotes-out') })
    const gaia = run.splits.GAIA!
    expect(gaia.oracleLosses).toEqual([
      expect.objectContaining({
        spanId: PLAN_SPAN,
        category: 'Goal Deviation',
        reason: 'second category on the same evidence',
      }),
    ])
    const prediction = JSON.parse(readFileSync(join(gaia.predictionsDir, `${GAIA[0]}.json`), 'utf8'))
    const here = prediction.errors
      .filter((e: { location: string }) => e.location === PLAN_SPAN)
      .map((e: { category: string; evidence: string }) => [e.category, e.evidence])
    expect(here).toEqual([
      ['Language-only', claim],
      ['Tool Selection Errors', skip],
    ])
    expect(gaia.scores.joint_accuracy).toBeCloseTo(2 / 3, 10)
  }, 60_000)

  test('a gold error on a span diagnosis never judges is listed as "span not selected"; the oracle answers only its own span', async () => {
    const dir = constructed('chain', 'a plain plan', 'a plain plan', STEP_SPAN)
    const run = await runTrailBench({ dir, mode: 'oracle', split: 'gaia', outDir: join(tmp, 'chain-out') })
    expect(run.splits.GAIA!.oracleLosses).toEqual([
      expect.objectContaining({ spanId: STEP_SPAN, reason: 'span not selected' }),
    ])
    // The LLM span that quotes the same text is not gold: the oracle must not name it there.
    const prediction = JSON.parse(readFileSync(join(run.splits.GAIA!.predictionsDir, `${GAIA[0]}.json`), 'utf8'))
    expect(prediction.errors.filter((e: { category: string }) => e.category === 'Language-only')).toEqual([])
  }, 60_000)

  test('the oracle predicts through the real pipeline, and a missing gold file names the path it looked at', async () => {
    const dir = subset('nometa', [GAIA[0]], [])
    const predictor = oraclePredictor({ dir })
    const trace = parseTrace(readFileSync(join(dir, 'GAIA', `${GAIA[0]}.json`), 'utf8'), 'x.json')
    // Through the real pipeline every span request carries its span id; the prediction succeeds.
    await expect(predictor(trace, { split: 'GAIA', traceId: GAIA[0], file: 'x.json' })).resolves.toMatchObject({
      scores: [],
    })
    // A missing gold file says where it looked.
    await expect(predictor(trace, { split: 'GAIA', traceId: 'nope', file: 'x.json' })).rejects.toThrow(
      /no gold annotation at .*nope\.json/,
    )
  }, 60_000)

  test('the CLI prints each lost gold error with its reason, and --json carries them under oracle_losses', async () => {
    const evidence = 'The museum closed in 1987, so the answer is Paris.'
    const dir = constructed(
      'cli',
      `${'padding before the claim. '.repeat(8000)}${evidence}${' padding after the claim.'.repeat(8000)}`,
      evidence,
    )
    const json = join(tmp, 'cli.json')
    let out = ''
    const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true))
    let code: number
    try {
      code = await benchCommand([
        'trail',
        dir,
        '--mode',
        'oracle',
        '--split',
        'gaia',
        '--out',
        join(tmp, 'cli-out'),
        '--json',
        json,
      ])
    } finally {
      o.mockRestore()
    }
    expect(code).toBe(0)
    expect(out).toMatch(/gold errors lost +1 \(1 truncated away\)/)
    expect(out).toContain(`${GAIA[0]} ${PLAN_SPAN} Language-only: truncated away`)
    const summary = JSON.parse(readFileSync(json, 'utf8'))
    expect(summary.GAIA.oracle_losses).toEqual([
      expect.objectContaining({ spanId: PLAN_SPAN, reason: 'truncated away' }),
    ])
    expect(
      await benchCommand(['trail', dir, '--mode', 'oracle', '--judge', 'openai:gpt-4.1'].map(String)).catch(() => -1),
    ).toBe(2)
  }, 60_000)

  test('the span id the oracle reads is metadata only: a recorded verdict keeps its cassette key', () => {
    const request = {
      metric: 'span-diagnosis',
      promptVersion: 'v',
      system: 's',
      content: [{ type: 'text' as const, text: 'judge this' }],
      schema: SpanJudgementSchema,
      schemaName: 'span_diagnosis',
    }
    const judge = { provider: 'openai', model: 'gpt-4.1' }
    expect(cassetteKey(judge, { ...request, spanId: 'abc' })).toBe(cassetteKey(judge, request))
  })
})
