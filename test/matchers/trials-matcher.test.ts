// Output and multimodal matchers over runTrials results, through the real openai SDK against the fake judge.
import '../../matchers/vitest'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { runTrials } from '../../src/trials/run-trials'
import { assertionStatus, countAssertions } from '../../src/verdict/assertion'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../../src/verdict/meta'
import { imageUrlsOf, startJudgeHarness, type JudgeHarness } from '../support/recording-judge'

const CHART = fileURLToPath(new URL('../fixtures/images/revenue-by-region.png', import.meta.url))

let h: JudgeHarness
beforeAll(async () => {
  vi.stubEnv('AGENT_VERDICT_MODE', 'live')
  h = await startJudgeHarness(
    {
      rules: [
        {
          name: 'wrong',
          when: { contains: 'EMEA leads' },
          respond: { verdict: 'fail', reason: 'the chart shows North America first' },
        },
      ],
      faults: [{ type: 'malformed-json', when: { contains: 'UNJUDGEABLE' } }],
    },
    { maxAttempts: 1 },
  )
})
afterAll(async () => {
  await h.close()
  vi.unstubAllEnvs()
})
beforeEach(() => {
  h.fake.reset()
  h.bodies.length = 0
})

const answers = (bad: number[], k = 5) =>
  runTrials(k, (i) => (bad.includes(i) ? `Trial ${i + 1}: EMEA leads.` : `Trial ${i + 1}: North America leads.`))

async function failureOf(assertion: Promise<unknown>): Promise<Error> {
  const error = await assertion.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof Error)) throw new Error('expected the assertion to fail, but it passed')
  return error
}

describe('trials on a multimodal matcher', () => {
  test('each trial is judged with the image; the verdict carries k, passes, interval and rule', async ({ task }) => {
    await expect(await answers([2])).toBeFaithfulToImage(CHART, { judge: h.judge, trials: { passRate: 0.6 } })
    expect(h.bodies).toHaveLength(5)
    expect(h.bodies.every((b) => imageUrlsOf(b).length === 1)).toBe(true)
    const [verdict] = (task.meta as Record<string, TestVerdictMeta>)[VERDICT_META_KEY].verdicts
    expect(verdict).toMatchObject({
      metric: 'faithfulness',
      outcome: 'pass',
      trials: { k: 5, passes: 4, rule: { kind: 'passRate', min: 0.6 } },
    })
  })

  test('.not inverts the rule, with the trials in the message', async () => {
    await expect(await answers([0, 1, 2])).not.toBeFaithfulToImage(CHART, { judge: h.judge, trials: 'pass^k' })
    const error = await failureOf(
      expect(await answers([])).not.toBeFaithfulToImage(CHART, { judge: h.judge, trials: 'pass^k' }),
    )
    expect(error.message).toContain('Faithfulness over 5 trials: pass — expected the rule not to be met')
  })
})

describe("trials: the report counts the rule's assertion, .not included", () => {
  const metaOf = (task: { meta: object }) => (task.meta as Record<string, TestVerdictMeta>)[VERDICT_META_KEY]

  test('.not over trials the judge failed passes, and the report counts one passed assertion', async ({ task }) => {
    await expect(await answers([0, 1, 2])).not.toBeFaithfulToImage(CHART, { judge: h.judge, trials: 'pass^k' })
    const meta = metaOf(task)
    expect(meta.assertions).toEqual([
      { id: 'toBeFaithfulToImage#1', matcher: 'toBeFaithfulToImage', negated: true, passed: true },
    ])
    expect(meta.verdicts).toHaveLength(1)
    expect(meta.verdicts[0]).toMatchObject({ outcome: 'fail', assertion: { negated: true, passed: true } })
    expect(assertionStatus(meta.verdicts[0])).toBe('pass')
    expect(countAssertions(meta.verdicts, meta.assertions)).toEqual({ assertions: 1, failed: 0 })
  })

  test('.not over trials the judge passed fails, and the report counts it failed', async ({ task }) => {
    await failureOf(
      expect(await answers([])).not.toBeCorrect({ judge: h.judge, reference: 'North America', trials: 'pass^k' }),
    )
    const meta = metaOf(task)
    expect(meta.verdicts[0]).toMatchObject({
      outcome: 'pass',
      assertion: { matcher: 'toBeCorrect', negated: true, passed: false },
    })
    expect(assertionStatus(meta.verdicts[0])).toBe('fail')
    expect(countAssertions(meta.verdicts, meta.assertions)).toEqual({ assertions: 1, failed: 1 })
  })
})

describe('trials: misuse and unjudgeable trials', () => {
  test('a trial the judge cannot judge makes the assertion fail as unjudgeable, also under .not', async () => {
    const trials = await runTrials(3, (i) => (i === 1 ? 'UNJUDGEABLE answer' : 'North America leads.'))
    const error = await failureOf(
      expect(trials).toBeCorrect({ judge: h.judge, reference: 'North America', trials: 'pass@k' }),
    )
    expect(error.message).toContain('Correctness over 3 trials: unjudgeable')
    await failureOf(expect(trials).not.toBeCorrect({ judge: h.judge, reference: 'North America', trials: 'pass@k' }))
  })

  test('trials without a rule, a rule without trials, and a bad trial value say what to write', async () => {
    await expect(expect(await answers([])).toBeCorrect({ judge: h.judge })).rejects.toThrow(
      /received 5 trials, so trials must be 'pass\^k', 'pass@k' or \{ passRate/,
    )
    await expect(expect('North America').toBeCorrect({ judge: h.judge, trials: 'pass^k' })).rejects.toThrow(
      /the trials option needs received values from runTrials/,
    )
    await expect(
      expect(await runTrials(2, (i) => (i ? 42 : 'ok'))).toBeCorrect({ judge: h.judge, trials: 'pass@k' }),
    ).rejects.toThrow(/trial 2: received must be a string/)
    expect(h.fake.stats.requests).toBe(0)
  })
})
