import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { JudgeOutputError } from '../../src/judges/errors'
import type { Judge } from '../../src/judges/types'
import { correctnessMetric } from '../../src/metrics/correctness'
import { faithfulnessMetric } from '../../src/metrics/faithfulness'
import { instructionFollowingMetric } from '../../src/metrics/instruction-following'
import { qualityMetric } from '../../src/metrics/quality'
import { rubricMetric } from '../../src/metrics/rubric'
import { runMetric } from '../../src/metrics/run-metric'
import { CALIBRATION_EXAMPLES } from '../../src/metrics/prompts/quality'
import { imageUrlsOf, startJudgeHarness, textOf, type JudgeHarness } from '../support/recording-judge'

const CHART = fileURLToPath(new URL('../fixtures/images/revenue-by-region.png', import.meta.url))
// Real labelled case chart-1 / chart-2 from /work/shared/fixtures/multimodal-cases.json.
const QUESTION =
  'Which region has the highest average revenue? State the region name and the dollar amount shown in the chart.'
const REFERENCE = 'North America, at $14.10.'

let h: JudgeHarness
beforeAll(async () => {
  h = await startJudgeHarness({
    rules: [
      {
        name: 'wrong-amount',
        when: { contains: '$15.20' },
        respond: { verdict: 'fail', reason: 'the chart shows North America at $14.10, not $15.20' },
      },
      {
        name: 'quality-3',
        when: { schemaName: 'quality_verdict', contains: 'North America.' },
        respond: { score: 3, reason: 'accurate but omits the amount' },
      },
      {
        name: 'rubric-2',
        when: { schemaName: 'rubric_score' },
        respond: { score: 2, reason: 'misses the tone criterion' },
      },
    ],
  })
})
afterAll(() => h.close())
beforeEach(() => {
  h.fake.reset()
  h.bodies.length = 0
})

const schemaOf = (i = 0) => h.bodies[i].response_format!.json_schema!

describe('every metric asks for reasoning before the score', () => {
  test.each([
    [
      'instruction following',
      () =>
        runMetric(
          instructionFollowingMetric,
          { output: 'W7', instruction: 'Answer with the week label only.' },
          { judge: h.judge },
        ),
    ],
    ['correctness', () => runMetric(correctnessMetric, { output: 'W7', input: 'Peak week?' }, { judge: h.judge })],
    [
      'faithfulness',
      () => runMetric(faithfulnessMetric, { output: 'W7', context: 'The peak was W7.' }, { judge: h.judge }),
    ],
    ['quality', () => runMetric(qualityMetric, { output: 'W7', instruction: 'Peak week?' }, { judge: h.judge })],
    [
      'rubric',
      () =>
        runMetric(
          rubricMetric('binary'),
          { output: 'W7', rubric: 'Names a week.', scale: 'binary' },
          { judge: h.judge },
        ),
    ],
  ])('%s', async (_name, run) => {
    const verdict = await run()
    const schema = schemaOf()
    expect(h.bodies[0].response_format!.type).toBe('json_schema')
    expect(schema.strict).toBe(true)
    const keys = Object.keys(schema.schema.properties as object)
    expect(keys[0]).toBe('reasoning')
    expect(keys.at(-1)).toBe('score')
    expect(verdict).toMatchObject({ level: 'output', outcome: 'pass', pass: true })
  })
})

describe('instruction following', () => {
  test('never sends the reference answer, even when one is given', async () => {
    const verdict = await runMetric(
      instructionFollowingMetric,
      { output: 'North America.', instruction: QUESTION, reference: 'SECRET-REFERENCE North America, at $14.10.' },
      { judge: h.judge },
    )
    const sent = textOf(h.bodies[0])
    expect(sent).toContain(QUESTION)
    expect(sent).toContain('North America.')
    expect(sent).not.toContain('SECRET-REFERENCE')
    expect(sent).not.toMatch(/<reference>/)
    expect(imageUrlsOf(h.bodies[0])).toEqual([])
    expect(verdict).toMatchObject({ metric: 'instruction-following', scale: 'binary', raw: 1, score: 1, threshold: 1 })
  })
})

describe('correctness', () => {
  test('reference-based with the chart: the image goes as an image_url part, a wrong amount fails with the reason', async () => {
    const verdict = await runMetric(
      correctnessMetric,
      {
        output: 'North America has the highest average revenue, at $15.20.',
        input: QUESTION,
        reference: REFERENCE,
        image: CHART,
      },
      { judge: h.judge },
    )
    const [url] = imageUrlsOf(h.bodies[0])
    expect(url).toBe(`data:image/png;base64,${readFileSync(CHART).toString('base64')}`)
    expect(textOf(h.bodies[0])).toContain(`<reference>\n${REFERENCE}\n</reference>`)
    expect(textOf(h.bodies[0])).toContain('against a REFERENCE answer')
    expect(verdict).toMatchObject({
      metric: 'correctness',
      raw: 0,
      score: 0,
      pass: false,
      outcome: 'fail',
      reason: 'the chart shows North America at $14.10, not $15.20',
      subject: 'North America has the highest average revenue, at $15.20.',
      image: { format: 'png', source: CHART },
    })
    expect(verdict.image!.digest).toMatch(/^[0-9a-f]{64}$/)
    expect(h.fake.calls[0].imageCount).toBe(1)
  })

  test('reference-free without a reference: judged against the question and the image', async () => {
    await runMetric(
      correctnessMetric,
      { output: 'North America, at $14.10.', input: QUESTION, image: CHART },
      { judge: h.judge },
    )
    const sent = textOf(h.bodies[0])
    expect(sent).toContain('There is no reference answer')
    expect(sent).not.toContain('<reference>')
    expect(imageUrlsOf(h.bodies[0])).toHaveLength(1)
  })

  test('judge info comes from the response: provider, model, prompt version, tokens, latency, not cached', async () => {
    const verdict = await runMetric(correctnessMetric, { output: 'W7', input: 'Peak week?' }, { judge: h.judge })
    expect(verdict.judge).toMatchObject({
      provider: 'openai-compatible',
      model: 'fake-judge',
      promptVersion: 'correctness@2',
      cached: false,
    })
    expect(verdict.judge!.tokens.input).toBe(h.fake.calls[0].usage!.prompt_tokens)
    expect(verdict.judge!.tokens.output).toBe(h.fake.calls[0].usage!.completion_tokens)
  })
})

describe('faithfulness', () => {
  test('needs a source: no context and no image is a usage error before any call', async () => {
    await expect(runMetric(faithfulnessMetric, { output: 'x' }, { judge: h.judge })).rejects.toThrow(/needs a source/)
    expect(h.fake.calls).toHaveLength(0)
  })

  test('text context is sent in a context block', async () => {
    await runMetric(
      faithfulnessMetric,
      { output: 'Refunds take 5 days.', context: 'Refunds are processed within 5 business days.' },
      { judge: h.judge },
    )
    expect(textOf(h.bodies[0])).toContain('<context>\nRefunds are processed within 5 business days.\n</context>')
  })
})

describe('overall quality', () => {
  test('the prompt carries diverse calibration examples and the four aspects', async () => {
    await runMetric(qualityMetric, { output: 'W7', instruction: 'Peak week?' }, { judge: h.judge })
    const system = h.bodies[0].messages[0].content as string
    expect(system).toContain(CALIBRATION_EXAMPLES)
    for (const score of ['score 5', 'score 4', 'score 3', 'score 1']) expect(system).toContain(`— ${score}`)
    const aspects = (schemaOf().schema.properties as Record<string, { properties: object }>).aspects.properties
    expect(Object.keys(aspects)).toEqual(['visual_accuracy', 'instruction_adherence', 'completeness', 'coherence'])
  })

  test('a 3/5 normalizes to 0.5 and fails the default threshold (4 → 0.75), passes threshold 0.5', async () => {
    const input = { output: 'North America.', instruction: QUESTION, image: CHART }
    const strict = await runMetric(qualityMetric, input, { judge: h.judge })
    expect(strict).toMatchObject({
      scale: 'likert5',
      raw: 3,
      score: 0.5,
      threshold: 0.75,
      pass: false,
      outcome: 'fail',
      reason: 'accurate but omits the amount',
    })
    const lenient = await runMetric(qualityMetric, input, { judge: h.judge, threshold: 0.5 })
    expect(lenient).toMatchObject({ raw: 3, pass: true, outcome: 'pass' })
  })

  test('a threshold outside 0..1 is refused with the 1–5 mapping', async () => {
    await expect(runMetric(qualityMetric, { output: 'x' }, { judge: h.judge, threshold: 4 })).rejects.toThrow(
      /0\.\.1.*4 is 0\.75/,
    )
  })
})

describe('custom rubric', () => {
  test('1–5 rubric uses its own schema and system prompt', async () => {
    const verdict = await runMetric(
      rubricMetric('likert5'),
      { output: 'ok', rubric: 'Polite and names the order number.', scale: 'likert5' },
      { judge: h.judge },
    )
    expect(schemaOf().name).toBe('rubric_score')
    expect(textOf(h.bodies[0])).toContain('<rubric>\nPolite and names the order number.\n</rubric>')
    expect(verdict).toMatchObject({ metric: 'rubric', scale: 'likert5', raw: 2, score: 0.25, pass: false })
  })
})

describe('self-consistency', () => {
  test('samples: 3 asks three times and sums the tokens', async () => {
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'W7', input: 'Peak week?' },
      { judge: h.judge, samples: 3 },
    )
    expect(h.fake.calls).toHaveLength(3)
    expect(verdict.samples).toEqual([1, 1, 1])
    const prompt = h.fake.calls.reduce((n, c) => n + c.usage!.prompt_tokens, 0)
    expect(verdict.judge!.tokens.input).toBe(prompt)
    expect(verdict.samplesFailed).toBeUndefined()
    // Every request is a judge call in the report, not one per verdict.
    expect(verdict.judge!.calls).toEqual({ made: 3, replayed: 0, retries: 0, reasks: 0 })
  })

  test('a retried request counts as two calls made, one of them a retry', async () => {
    h.fake.setFaults([{ type: 'rate-limit', times: 1, retryAfter: '0' }])
    try {
      const verdict = await runMetric(
        correctnessMetric,
        { output: 'W7', input: 'Peak week?' },
        { judge: h.judge, samples: 2 },
      )
      expect(h.fake.calls.length).toBeGreaterThanOrEqual(2)
      expect(verdict.judge!.calls).toEqual({ made: 3, replayed: 0, retries: 1, reasks: 0 })
    } finally {
      h.fake.setFaults([])
    }
  })

  test('a re-ask after an invalid reply counts as a call made and a re-ask, not a retry', async () => {
    h.fake.setFaults([{ type: 'malformed-json', times: 1 }])
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'W7', input: 'Peak week?' },
      { judge: h.judge },
    ).finally(() => h.fake.setFaults([]))
    expect(h.fake.calls).toHaveLength(2)
    expect(verdict.outcome).toBe('pass')
    expect(verdict.judge!.calls).toEqual({ made: 2, replayed: 0, retries: 0, reasks: 1 })
  })

  test('samples: 3 with 2 invalid samples is unjudgeable and says so, never a pass on the one valid sample', async () => {
    // The first five requests get malformed JSON: three samples × (ask + one re-ask) leaves exactly one valid reply.
    h.fake.setFaults([{ type: 'malformed-json', times: 5 }])
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'W7', input: 'Peak week?' },
      { judge: h.judge, samples: 3 },
    ).finally(() => h.fake.setFaults([]))
    expect(h.fake.calls).toHaveLength(6)
    expect(verdict).toMatchObject({ outcome: 'unjudgeable', pass: false, score: null, samplesFailed: 2 })
    expect(verdict.reason).toMatch(
      /^only 1 of 3 samples gave a valid verdict \(2 failed; no majority of valid samples\)/,
    )
  })

  test('samples: 3 with 1 failed sample passes on the majority and records the failure in the reason and the verdict', async () => {
    let n = 0
    const flaky: Judge = {
      ...h.judge,
      evaluate: (request, signal) =>
        ++n === 2
          ? Promise.reject(
              new JudgeOutputError('fake-judge replied with text that is not one JSON document', {
                provider: 'openai-compatible',
                model: 'fake-judge',
                raw: 'I think so',
              }),
            )
          : h.judge.evaluate(request, signal),
    }
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'W7', input: 'Peak week?' },
      { judge: flaky, samples: 3 },
    )
    expect(verdict).toMatchObject({ outcome: 'pass', samples: [1, 1], samplesFailed: 1 })
    expect(verdict.reason).toContain(
      '(1 of 3 samples gave no valid verdict: fake-judge replied with text that is not one JSON document)',
    )
  })

  test('a failed sample behind a passing verdict: the tokens of its rejected reply are billed, and the verdict is not "cached"', async () => {
    let n = 0
    const usages: number[] = []
    const flaky: Judge = {
      ...h.judge,
      evaluate: async (request, signal) => {
        if (++n === 2)
          throw new JudgeOutputError('not one JSON document', {
            provider: 'openai-compatible',
            model: 'fake-judge',
            raw: 'I think so',
            usage: { inputTokens: 1000, outputTokens: 7 },
          })
        const response = await h.judge.evaluate(request, signal)
        usages.push(response.usage?.inputTokens ?? 0)
        return response
      },
    }
    const verdict = await runMetric(
      correctnessMetric,
      { output: 'W7', input: 'Peak week?' },
      { judge: flaky, samples: 3 },
    )
    expect(verdict.outcome).toBe('pass')
    expect(verdict.judge?.tokens.input).toBe(usages[0] + usages[1] + 1000)
    expect(verdict.judge?.cached).toBe(false)
    expect(verdict.judge?.calls?.made).toBe(3)
  })
})

describe('unjudgeable', () => {
  test('malformed judge output after retries is its own outcome with the cause, never a pass or a zero', async () => {
    h.fake.setFaults([{ type: 'malformed-json' }])
    try {
      const verdict = await runMetric(faithfulnessMetric, { output: 'x', context: 'y' }, { judge: h.judge })
      expect(verdict).toMatchObject({ outcome: 'unjudgeable', pass: false, score: null, raw: null })
      expect(verdict.judge).toMatchObject({
        provider: 'openai-compatible',
        model: 'fake-judge',
        promptVersion: 'faithfulness@2',
        cached: false,
      })
      expect(verdict.reason).toMatch(/JSON|parse|valid/i)
      expect(h.fake.calls.length).toBeGreaterThanOrEqual(2)
    } finally {
      h.fake.setFaults([])
    }
  })
})

describe('evaluate* functions (outside a test runner)', () => {
  test('evaluateRubric with an explicit judge, and an invalid scale is named, not silently binary', async () => {
    const { evaluateRubric } = await import('../../src/metrics/evaluate')
    const verdict = await evaluateRubric({ output: 'ok', rubric: 'Polite.', scale: 'likert5' }, { judge: h.judge })
    expect(verdict).toMatchObject({ metric: 'rubric', scale: 'likert5', raw: 2 })
    await expect(
      evaluateRubric({ output: 'ok', rubric: 'Polite.', scale: 5 as never }, { judge: h.judge }),
    ).rejects.toThrow(/Rubric: invalid input at scale/)
  })

  test('without a judge they use AGENT_VERDICT_JUDGE, and fail loudly when none is set', async () => {
    const { evaluateFaithfulness } = await import('../../src/metrics/evaluate')
    const saved = process.env.AGENT_VERDICT_JUDGE
    try {
      process.env.AGENT_VERDICT_JUDGE = `openai-compatible:${h.fake.baseURL}#from-env`
      const verdict = await evaluateFaithfulness({ output: 'a', context: 'a' })
      expect(verdict.judge).toMatchObject({ model: 'from-env' })
      delete process.env.AGENT_VERDICT_JUDGE
      await expect(evaluateFaithfulness({ output: 'a', context: 'a' })).rejects.toThrow(/no judge configured/)
    } finally {
      if (saved === undefined) delete process.env.AGENT_VERDICT_JUDGE
      else process.env.AGENT_VERDICT_JUDGE = saved
    }
  })
})
