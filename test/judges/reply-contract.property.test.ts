// Property tests of the reply contract (fast-check): replies built from prose, fences, truncated JSON and
// passing verdicts around a failing verdict never yield a pass — neither in the parser nor end to end
// through the real SDK clients (msw answers). A passing score planted in a structured (tool) verdict
// that is otherwise malformed never passes either.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { JudgeOutputError } from '../../src/judges/errors'
import { parseJudgeText } from '../../src/judges/parse-output'
import { BinaryOutputSchema } from '../../src/metrics/output-schemas'
import { callKinds, providerShapes, script, server } from '../support/reply-contract'

const PASS = { reasoning: 'Only the week label is given.', score: 1 }
const FAIL = { reasoning: 'It adds a sentence around the label.', score: 0 }
const ctx = { provider: 'openai-compatible', model: 'llama3.2', metric: 'instruction-following' }

const doc = (value: unknown) =>
  fc.constantFrom(
    JSON.stringify(value),
    JSON.stringify(value, null, 2),
    '```json\n' + JSON.stringify(value) + '\n```',
    '```\n' + JSON.stringify(value, null, 2) + '\n```',
  )
const noise = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('```', '```json\n', '{', '}', '"score": 1', '\n', 'Verdict:', 'PASS'),
  fc.nat({ max: 40 }).map((n) => JSON.stringify(PASS).slice(0, n)),
  doc(PASS),
)
/** Any mix of noise and passing verdicts around at least one failing verdict document. */
const replyAroundAFailingVerdict = fc
  .tuple(
    fc.array(noise, { maxLength: 3 }),
    doc(FAIL),
    fc.array(noise, { maxLength: 3 }),
    fc.constantFrom('', '\n', ' ', '\n\n'),
  )
  .map(([before, fail, after, sep]) => [...before, fail, ...after].join(sep))

describe('parser', () => {
  test('a reply holding a failing verdict is that failing verdict or no verdict, never a pass', () => {
    fc.assert(
      fc.property(replyAroundAFailingVerdict, (reply) => {
        let parsed: unknown
        try {
          parsed = parseJudgeText(reply, BinaryOutputSchema, ctx)
        } catch (err) {
          expect(err).toBeInstanceOf(JudgeOutputError)
          return
        }
        expect(parsed).toEqual(FAIL)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('end to end, through the real SDK clients', () => {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
  afterAll(() => server.close())
  const output = callKinds()[0]
  const shapes = providerShapes()
  const text = shapes.find((s) => s.name === 'openai-compatible plain text')!
  const converse = shapes.find((s) => s.name === 'bedrock converse text')!
  const tool = shapes.find((s) => s.name === 'bedrock forced tool')!

  test.each([
    ['openai-compatible plain text', text],
    ['bedrock converse text', converse],
  ])('%s: toFollowInstructions never passes on a reply holding a failing verdict', async (_name, shape) => {
    await fc.assert(
      fc.asyncProperty(replyAroundAFailingVerdict, async (reply) => {
        script(shape.toReply({ texts: [reply] }))
        expect(await output.run(shape.judge())).not.toBe('pass')
      }),
      { numRuns: 60 },
    )
  })

  test('bedrock forced tool: a failing tool verdict with any score that is not the passing 1, and any extra keys, never passes', async () => {
    // The failing 0 often, so extra keys are tried on an otherwise valid verdict too.
    const notOne = fc.oneof(
      fc.constant(0),
      fc.jsonValue().filter((v) => v !== 1),
    )
    const extra = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== 'reasoning' && k !== 'score' && k !== '__proto__'),
      fc.jsonValue(),
      { maxKeys: 2 },
    )
    await fc.assert(
      fc.asyncProperty(notOne, extra, async (score, keys) => {
        script(
          tool.toReply({
            texts: [],
            blocks: [
              { toolUse: { toolUseId: 't1', name: 'verdict', input: { ...keys, reasoning: FAIL.reasoning, score } } },
            ],
          }),
        )
        const outcome = await output.run(tool.judge())
        expect(outcome).not.toBe('pass')
        // Valid only as the plain failing verdict: score 0 and no extra key.
        expect(outcome).toBe(score === 0 && Object.keys(keys).length === 0 ? 'fail' : 'unjudgeable')
      }),
      { numRuns: 60 },
    )
  })
})
