// Every matcher: pass, fail, .not and unjudgeable, through the real openai SDK against the fake judge.
import '../../matchers/vitest'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { ImageInputError } from '../../src/media/errors'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../../src/verdict/meta'
import { imageUrlsOf, startJudgeHarness, textOf, type JudgeHarness } from '../support/recording-judge'

const CHART = fileURLToPath(new URL('../fixtures/images/revenue-by-region.png', import.meta.url))
const SHAPES = fileURLToPath(new URL('../fixtures/images/shapes.png', import.meta.url))
const QUESTION =
  'Which region has the highest average revenue? State the region name and the dollar amount shown in the chart.'

let h: JudgeHarness
beforeAll(async () => {
  vi.stubEnv('AGENT_VERDICT_MODE', 'live') // unit tests: no cassette files beside this test
  h = await startJudgeHarness({
    rules: [
      {
        name: 'emea',
        when: { contains: 'EMEA leads' },
        respond: { verdict: 'fail', reason: 'the answer says EMEA leads, but the chart shows North America at $14.10' },
      },
      {
        name: 'mediocre',
        when: { contains: 'MEDIOCRE', schemaName: 'quality_verdict' },
        respond: { score: 3, reason: 'accurate but vague' },
      },
      {
        name: 'rubric-3',
        when: { contains: 'MEDIOCRE', schemaName: 'rubric_score' },
        respond: { score: 3, reason: 'meets most criteria' },
      },
      { name: 'wrong', when: { contains: 'WRONG' }, respond: { verdict: 'fail', reason: 'judge says WRONG' } },
    ],
    faults: [{ type: 'malformed-json', when: { contains: 'UNJUDGEABLE' } }],
  })
})
afterAll(async () => {
  await h.close()
  vi.unstubAllEnvs()
})
beforeEach(() => {
  h.fake.reset()
  h.bodies.length = 0
})

/** The error an assertion rejects with (fails the test if it does not reject). */
async function failureOf(assertion: Promise<unknown>): Promise<Error> {
  const error = await assertion.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof Error)) throw new Error('expected the assertion to fail, but it passed')
  // The runner colours the hint and the received value (this.utils): compare the words.
  error.message = stripVTControlCharacters(error.message)
  return error
}

const metaOf = (task: { meta: object }) => (task.meta as Record<string, TestVerdictMeta>)[VERDICT_META_KEY]

describe('toBeFaithfulToImage', () => {
  test('pass: the image goes to the judge as an image_url part and the verdict lands on task.meta', async ({
    task,
  }) => {
    await expect('North America leads at $14.10.').toBeFaithfulToImage(CHART, { judge: h.judge, instruction: QUESTION })
    expect(imageUrlsOf(h.bodies[0])[0]).toMatch(/^data:image\/png;base64,iVBORw0KGgo/)
    expect(textOf(h.bodies[0])).toContain(QUESTION)
    expect(metaOf(task).verdicts).toEqual([
      expect.objectContaining({
        metric: 'faithfulness',
        outcome: 'pass',
        score: 1,
        image: expect.objectContaining({ format: 'png', source: CHART }),
      }),
    ])
  })

  test('a Buffer image is kept under its digest for the HTML report (owner-only), which could not read it back otherwise', async ({
    task,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'av-image-cache-'))
    // Set and restored by hand: vi.unstubAllEnvs() would also undo the file's AGENT_VERDICT_MODE=live.
    process.env.AGENT_VERDICT_IMAGE_CACHE = join(dir, 'images')
    try {
      const bytes = readFileSync(CHART)
      await expect('North America leads at $14.10.').toBeFaithfulToImage(bytes, {
        judge: h.judge,
        instruction: QUESTION,
      })
      const { digest, format } = metaOf(task).verdicts[0].image!
      const kept = join(dir, 'images', `${digest}.${format}`)
      expect(readFileSync(kept).equals(bytes)).toBe(true)
      expect(statSync(kept).mode & 0o077).toBe(0)
    } finally {
      delete process.env.AGENT_VERDICT_IMAGE_CACHE
    }
  })

  test('fail: the message leads with metric, score vs threshold and the judge reason', async ({ task }) => {
    const error = await failureOf(expect('EMEA leads with $10.85.').toBeFaithfulToImage(CHART, { judge: h.judge }))
    expect(error.message).toMatchInlineSnapshot(`
      "expect(received).toBeFaithfulToImage(image)

      Faithfulness: fail (0/1, min 1)
      Reason: the answer says EMEA leads, but the chart shows North America at $14.10
      Received: "EMEA leads with $10.85."
      Judge: openai-compatible:fake-judge · faithfulness@2"
    `)
    expect(metaOf(task).verdicts[0]).toMatchObject({ outcome: 'fail', pass: false })
  })

  test('.not passes on a failing verdict and fails on a passing one with .not wording', async () => {
    await expect('EMEA leads with $10.85.').not.toBeFaithfulToImage(CHART, { judge: h.judge })
    const error = await failureOf(expect('North America leads.').not.toBeFaithfulToImage(CHART, { judge: h.judge }))
    expect(error.message).toMatch(
      /^expect\(received\)\.not\.toBeFaithfulToImage\(image\)\n\nFaithfulness: pass \(1\/1, min 1\) — expected it not to pass\n/,
    )
  })

  test('unjudgeable fails, and fails under .not too, with its cause', async ({ task }) => {
    const plain = await failureOf(expect('UNJUDGEABLE').toBeFaithfulToImage(CHART, { judge: h.judge }))
    const negated = await failureOf(expect('UNJUDGEABLE').not.toBeFaithfulToImage(CHART, { judge: h.judge }))
    expect(plain.message).toMatch(
      /Faithfulness: unjudgeable — the judge gave no valid verdict, so this fails\nCause: .*(JSON|parse)/i,
    )
    expect(negated.message).toMatch(/Faithfulness: unjudgeable — .* fails under \.not too\nCause: /)
    expect(metaOf(task).verdicts.map((v) => v.outcome)).toEqual(['unjudgeable', 'unjudgeable'])
  })
})

describe('toFollowInstructions', () => {
  test('pass, and the reference is never sent even when the received object carries input', async () => {
    await expect({ output: 'North America, $14.10', input: QUESTION }).toFollowInstructions(
      'State the region and the dollar amount.',
      { judge: h.judge },
    )
    const sent = textOf(h.bodies[0])
    expect(sent).toContain('<instruction>\nState the region and the dollar amount.\n</instruction>')
    expect(sent).not.toContain('<reference>')
    expect(imageUrlsOf(h.bodies[0])).toEqual([])
  })
  test('fail, .not and unjudgeable', async () => {
    expect(
      (await failureOf(expect('WRONG').toFollowInstructions('Answer in one word.', { judge: h.judge }))).message,
    ).toContain('Instruction following: fail (0/1, min 1)\nReason: judge says WRONG')
    await expect('WRONG').not.toFollowInstructions('Answer in one word.', { judge: h.judge })
    expect(
      (await failureOf(expect('UNJUDGEABLE').not.toFollowInstructions('x', { judge: h.judge }))).message,
    ).toContain('Instruction following: unjudgeable')
  })
})

describe('toBeCorrect', () => {
  test('pass with reference and input from the options, reference-based prompt', async () => {
    await expect('North America, at $14.10.').toBeCorrect({
      reference: 'North America, at $14.10.',
      input: QUESTION,
      judge: h.judge,
    })
    expect(textOf(h.bodies[0])).toContain('<reference>\nNorth America, at $14.10.\n</reference>')
  })
  test('reference-free with the received image and input', async () => {
    await expect({ output: 'Two blue squares.', input: 'How many squares?', image: SHAPES }).toBeCorrect({
      judge: h.judge,
    })
    expect(textOf(h.bodies[0])).toContain('There is no reference answer')
    expect(imageUrlsOf(h.bodies[0])).toHaveLength(1)
  })
  test('fail, .not and unjudgeable', async () => {
    expect((await failureOf(expect('WRONG').toBeCorrect({ reference: 'right', judge: h.judge }))).message).toContain(
      'Correctness: fail (0/1, min 1)\nReason: judge says WRONG',
    )
    await expect('WRONG').not.toBeCorrect({ reference: 'right', judge: h.judge })
    expect((await failureOf(expect('UNJUDGEABLE').toBeCorrect({ judge: h.judge }))).message).toContain(
      'Correctness: unjudgeable',
    )
  })
})

describe('toBeFaithfulTo', () => {
  test('pass with the context sent as a context block', async () => {
    await expect('Refunds take 5 days.').toBeFaithfulTo('Refunds are processed within 5 business days.', {
      judge: h.judge,
    })
    expect(textOf(h.bodies[0])).toContain('<context>\nRefunds are processed within 5 business days.\n</context>')
  })
  test('fail, .not and unjudgeable', async () => {
    expect((await failureOf(expect('WRONG').toBeFaithfulTo('ctx', { judge: h.judge }))).message).toContain(
      'Faithfulness: fail',
    )
    await expect('WRONG').not.toBeFaithfulTo('ctx', { judge: h.judge })
    expect((await failureOf(expect('UNJUDGEABLE').not.toBeFaithfulTo('ctx', { judge: h.judge }))).message).toContain(
      'fails under .not too',
    )
  })
})

describe('toBeCorrectForImage', () => {
  test('pass: image part and the instruction as the question', async () => {
    await expect('There are two squares, and both are blue.').toBeCorrectForImage(SHAPES, {
      instruction: 'How many squares are in the image, and what colour are they?',
      judge: h.judge,
    })
    expect(imageUrlsOf(h.bodies[0])).toHaveLength(1)
    expect(textOf(h.bodies[0])).toContain(
      '<question>\nHow many squares are in the image, and what colour are they?\n</question>',
    )
  })
  test('fail, .not and unjudgeable', async () => {
    expect(
      (await failureOf(expect('WRONG').toBeCorrectForImage(SHAPES, { instruction: 'Count.', judge: h.judge }))).message,
    ).toMatch(/^expect\(received\)\.toBeCorrectForImage\(image, \{ instruction \}\)\n\nCorrectness: fail/)
    await expect('WRONG').not.toBeCorrectForImage(SHAPES, { instruction: 'Count.', judge: h.judge })
    expect(
      (await failureOf(expect('UNJUDGEABLE').toBeCorrectForImage(SHAPES, { instruction: 'Count.', judge: h.judge })))
        .message,
    ).toContain('Correctness: unjudgeable')
  })
})

describe('toHaveQuality', () => {
  test('pass at the default min 4 (the fake judge answers 5 by default); calibration examples in the prompt', async () => {
    await expect({ output: 'Users rise to 58k in W7, then drop to 35k.', image: CHART }).toHaveQuality({
      instruction: 'Describe the trend.',
      judge: h.judge,
    })
    expect(h.bodies[0].messages[0].content).toContain('Calibration examples')
    expect(imageUrlsOf(h.bodies[0])).toHaveLength(1)
  })
  test('a 3 fails min 4 with the 1–5 scale in the message, passes min 3, and .not passes', async () => {
    const error = await failureOf(expect('MEDIOCRE').toHaveQuality({ judge: h.judge }))
    expect(error.message).toContain('Overall quality: fail (3/5, min 4)\nReason: accurate but vague')
    await expect('MEDIOCRE').toHaveQuality({ min: 3, judge: h.judge })
    await expect('MEDIOCRE').not.toHaveQuality({ judge: h.judge })
  })
  test('unjudgeable', async () => {
    expect((await failureOf(expect('UNJUDGEABLE').not.toHaveQuality({ judge: h.judge }))).message).toContain(
      'Overall quality: unjudgeable',
    )
  })
  test('min outside 1–5 is a usage error', async () => {
    expect((await failureOf(expect('x').toHaveQuality({ min: 7, judge: h.judge }))).message).toMatch(
      /min must be a score on the 1–5 scale/,
    )
  })
})

describe('toSatisfyRubric', () => {
  test('binary pass with the rubric sent', async () => {
    await expect('Sorry about order 5521; the refund arrives Friday.').toSatisfyRubric(
      'Apologises and names the order number.',
      { judge: h.judge },
    )
    expect(textOf(h.bodies[0])).toContain('<rubric>\nApologises and names the order number.\n</rubric>')
    expect(h.bodies[0].response_format!.json_schema!.name).toBe('rubric_verdict')
  })
  test('1–5 rubric with an image: 3 fails the default, passes min 3', async () => {
    const error = await failureOf(
      expect('MEDIOCRE').toSatisfyRubric('Describes the chart.', { image: CHART, scale: 'likert5', judge: h.judge }),
    )
    expect(error.message).toContain('Rubric: fail (3/5, min 4)')
    await expect('MEDIOCRE').toSatisfyRubric('Describes the chart.', {
      image: CHART,
      scale: 'likert5',
      min: 3,
      judge: h.judge,
    })
    expect(imageUrlsOf(h.bodies.at(-1)!)).toHaveLength(1)
  })
  test('fail, .not and unjudgeable', async () => {
    await expect('WRONG').not.toSatisfyRubric('Be right.', { judge: h.judge })
    expect((await failureOf(expect('WRONG').toSatisfyRubric('Be right.', { judge: h.judge }))).message).toContain(
      'Rubric: fail (0/1, min 1)',
    )
    expect((await failureOf(expect('UNJUDGEABLE').toSatisfyRubric('Be right.', { judge: h.judge }))).message).toContain(
      'Rubric: unjudgeable',
    )
  })
})

describe('received values and options', () => {
  test.each([
    [42, 'number'],
    [null, 'null'],
    [{ text: 'hi' }, 'an object without "output" (keys: text)'],
    [{ output: 3 }, 'an object whose "output" is number, not a string'],
  ])('%j is refused, even under .not, saying what is accepted', async (received, got) => {
    for (const assertion of [
      expect(received).toBeCorrect({ judge: h.judge }),
      expect(received).not.toBeCorrect({ judge: h.judge }),
    ]) {
      const error = await failureOf(assertion)
      expect(error.message).toContain(
        'received must be a string (the output) or { output: string, input?: string, image?:',
      )
      expect(error.message).toContain(`got ${got}`)
    }
    expect(h.fake.stats.requests).toBe(0)
  })

  test('a bad image is an ImageInputError, under .not too, and nothing is sent', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')
    for (const assertion of [
      expect('x').toBeFaithfulToImage(svg, { judge: h.judge }),
      expect('x').not.toBeCorrectForImage(svg, { instruction: 'Count.', judge: h.judge }),
    ]) {
      const error = await failureOf(assertion)
      expect(error).toBeInstanceOf(ImageInputError)
      expect(error).toMatchObject({ detected: 'svg' })
    }
    expect(h.fake.stats.requests).toBe(0)
  })

  test('threshold and samples are per call', async ({ task }) => {
    await expect('MEDIOCRE').toHaveQuality({ threshold: 0.5, samples: 3, judge: h.judge })
    expect(h.fake.calls).toHaveLength(3)
    expect(metaOf(task).verdicts[0]).toMatchObject({ threshold: 0.5, raw: 3, samples: [0.5, 0.5, 0.5], pass: true })
  })

  test('without a judge option the AGENT_VERDICT_JUDGE one is used; without either, a config error names it', async () => {
    vi.stubEnv('AGENT_VERDICT_JUDGE', `openai-compatible:${h.fake.baseURL}#env-judge`)
    await expect('North America leads.').toBeFaithfulTo('North America leads.')
    expect(h.fake.calls[0].model).toBe('env-judge')
    vi.stubEnv('AGENT_VERDICT_JUDGE', '')
    expect((await failureOf(expect('x').toBeFaithfulTo('y'))).message).toMatch(
      /no judge configured[\s\S]*AGENT_VERDICT_JUDGE=openai:MODEL/,
    )
  })
})
