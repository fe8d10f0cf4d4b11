// TRAIL judge and monolithic modes against the fake judge: the plumbing (predictions, context-window
// skips, scores mapping), never accuracy — the fake judge's replies are scripted.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { diagnosisToPrediction, trailScores } from '../../src/bench/judge-predictor'
import { CONTEXT_EXCEEDED_TEXT, monolithicTokens } from '../../src/bench/monolithic-predictor'
import { TrailBenchResultSchema, runTrailBench } from '../../src/bench/trail-harness'
import { TrailPredictionSchema } from '../../src/bench/trail-prediction'
import { benchCommand } from '../../src/cli/bench'
import { canonicalView } from '../../src/diagnosis/canonical'
import { diagnose } from '../../src/diagnosis/diagnose'
import { detect } from '../../src/metrics/detectors/index'
import { loadTrace } from '../../src/trace/load'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { fakeJudgeClient } from '../diagnosis/helpers'
import { FIXTURE_DIR, HAS_TRAIL, TRAIL_DIR } from '../helpers/trail'

// Three of the smallest GAIA traces.
const IDS = ['0ebe673d64647ec44c370638b82d3c78', '1427b326e21963a1228647ad8dff2bf4', 'f39aec9b8a61fd2aaed5849cc00bc165']
const tmp = mkdtempSync(join(tmpdir(), 'trail-judge-modes-'))
let fake: FakeJudge
beforeAll(async () => {
  fake = await startFakeJudge({})
})
afterAll(async () => {
  await fake.close()
  rmSync(tmp, { recursive: true, force: true })
})
beforeEach(() => {
  fake.reset()
  fake.setRules([])
})

describe('judge mode: predictions from the diagnosis', () => {
  test('every failing (span, category) — detectors and judge — becomes a TRAIL error; agent metrics become scores', async () => {
    const trace = await loadTrace(join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json'))
    const explained = new Set(detect(trace).map((f) => f.spanId))
    const target = trace.spansByKind('llm').find((s) => !explained.has(s.id))!
    fake.setRules([
      {
        when: { contains: `<span>\nposition: ${canonicalView(trace).position(target.id)}\n` },
        respond: { verdict: 'fail', reason: 'skips the file check', fields: { error_category: 'Goal Deviation' } },
      },
      {
        when: { schemaName: 'agent_diagnosis' },
        respond: {
          verdict: 'pass',
          reason: 'ok',
          fields: {
            plan_efficiency: { score: 2, reason: 'left the plan' },
            completeness: { score: 3, reason: 'partial' },
          },
        },
      },
    ])
    const d = await diagnose(trace, { judge: fakeJudgeClient(fake) })
    const p = TrailPredictionSchema.parse(diagnosisToPrediction(d))
    const expected = [...detect(trace).map((f) => `${f.spanId} ${f.category}`), `${target.id} Goal Deviation`]
    expect(p.errors.map((e) => `${e.location} ${e.category}`).sort()).toEqual([...new Set(expected)].sort())
    expect(p.errors.find((e) => e.location === target.id)).toMatchObject({
      impact: 'HIGH',
      description: expect.stringContaining('[span.error_category]'),
    })
    expect(p.scores).toEqual([
      expect.objectContaining({
        reliability_score: 3,
        security_score: 5,
        instruction_adherence_score: 5,
        plan_opt_score: 2,
        overall: 3.75,
      }),
    ])
  })

  test('no scores without the agent-level judge verdicts', async () => {
    const trace = await loadTrace(join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json'))
    expect(trailScores(await diagnose(trace))).toBeUndefined()
    expect(trailScores(await diagnose(trace, { judge: fakeJudgeClient(fake), agent: false }))).toBeUndefined()
  })

  test.skipIf(!HAS_TRAIL)(
    'runTrailBench --mode judge writes predictions on real span ids and scores them',
    async () => {
      const outDir = join(tmp, 'judge')
      const r = await runTrailBench({
        dir: TRAIL_DIR,
        split: 'gaia',
        mode: 'judge',
        judge: fakeJudgeClient(fake),
        traces: IDS,
        outDir,
      })
      expect(TrailBenchResultSchema.parse(r)).toEqual(r)
      expect(r.splits.GAIA).toMatchObject({ predicted: 3, failures: [], scores: { files_processed: 3 } })
      expect(r.splits.GAIA!.contextExceeded).toBeUndefined()
      for (const id of IDS) {
        const trace = await loadTrace(join(TRAIL_DIR, 'GAIA', `${id}.json`))
        const p = TrailPredictionSchema.parse(JSON.parse(readFileSync(join(outDir, 'GAIA', `${id}.json`), 'utf8')))
        for (const e of p.errors) expect(trace.get(e.location)?.kind).toMatch(/llm|tool/)
        expect(p.scores).toHaveLength(1)
      }
      expect(fake.calls.length).toBeGreaterThan(3)
    },
  )
})

describe.skipIf(!HAS_TRAIL)('monolithic mode: the whole trace in one prompt', () => {
  test('traces over the context window are written as the official pipeline does and skipped by the scorer', async () => {
    const sizes = await Promise.all(
      IDS.map(async (id) => monolithicTokens(await readFile(join(TRAIL_DIR, 'GAIA', `${id}.json`), 'utf8'))),
    )
    const context = Math.round((Math.min(...sizes) + Math.max(...sizes)) / 2)
    const over = IDS.filter((_, i) => sizes[i] > context)
    expect(over.length).toBeGreaterThan(0)
    expect(over.length).toBeLessThan(IDS.length)

    const outDir = join(tmp, 'mono')
    const r = await runTrailBench({
      dir: TRAIL_DIR,
      split: 'gaia',
      mode: 'monolithic',
      judge: fakeJudgeClient(fake),
      contextTokens: context,
      traces: IDS,
      outDir,
    })
    expect(r.splits.GAIA!.contextExceeded).toEqual([...over].sort())
    expect(r.splits.GAIA).toMatchObject({
      predicted: IDS.length - over.length,
      failures: [],
      scores: { files_processed: IDS.length - over.length },
    })
    for (const id of over) expect(readFileSync(join(outDir, 'GAIA', `${id}.json`), 'utf8')).toBe(CONTEXT_EXCEEDED_TEXT)
    // One call per trace that fit, holding the whole file text.
    expect(fake.calls).toHaveLength(IDS.length - over.length)
    const fitted = IDS.find((id) => !over.includes(id))!
    expect(fake.calls[0].prompt).toContain(
      readFileSync(join(TRAIL_DIR, 'GAIA', `${fitted}.json`), 'utf8').slice(0, 2000),
    )
    expect(fake.calls[0].usage!.prompt_tokens).toBeLessThanOrEqual(context)
  })

  test('the CLI takes --judge and --context and says how many traces exceeded it', async () => {
    let stdout = ''
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true))
    try {
      const code = await benchCommand([
        'trail',
        TRAIL_DIR,
        '--split',
        'swe',
        '--mode',
        'monolithic',
        '--judge',
        `openai-compatible:${fake.baseURL}#fake`,
        '--context',
        '1000',
        '--out',
        join(tmp, 'cli'),
      ])
      expect(code).toBe(0)
    } finally {
      vi.restoreAllMocks()
    }
    const total = readdirSync(join(TRAIL_DIR, 'SWE_Bench')).filter((f) => f.endsWith('.json')).length
    expect(stdout).toContain(`context window exceeded  ${total} of ${total} traces over 1,000 tokens`)
    expect(fake.calls).toHaveLength(0)
  })
})
