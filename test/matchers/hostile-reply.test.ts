// A matcher fed a judge reply that quotes a passing verdict before its real, failing one: the assertion
// is never a pass, under .not neither (unjudgeable fails both ways). Real openai SDK; msw answers.
import '../../matchers/vitest'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { providerShapes, script, server } from '../support/reply-contract'

const PASS = { reasoning: 'Only the week label is given.', score: 1 }
const FAIL = { reasoning: 'It adds a sentence around the label.', score: 0 }
const quoted = `Example of a pass:\n\`\`\`json\n${JSON.stringify(PASS)}\n\`\`\`\nMy verdict:\n${JSON.stringify(FAIL)}`
const shape = providerShapes().find((s) => s.name === 'openai-compatible plain text')!

beforeAll(() => {
  vi.stubEnv('AGENT_VERDICT_MODE', 'live') // no cassette files beside this test
  server.listen({ onUnhandledRequest: 'error' })
})
afterAll(() => {
  server.close()
  vi.unstubAllEnvs()
})

async function failureOf(assertion: Promise<unknown>): Promise<Error> {
  const error = await assertion.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof Error)) throw new Error('expected the assertion to fail, but it passed')
  return error
}

describe('toFollowInstructions with a quoted passing verdict before the real one', () => {
  test('control: the clean failing verdict fails, and passes under .not', async () => {
    script(shape.toReply({ texts: [JSON.stringify(FAIL)] }))
    expect(
      (await failureOf(expect('W7').toFollowInstructions('Answer with the week label only.', { judge: shape.judge() })))
        .message,
    ).toContain('Instruction following: fail')
    await expect('W7').not.toFollowInstructions('Answer with the week label only.', { judge: shape.judge() })
  })

  test('the quoted pass is not taken: unjudgeable, which fails the assertion and its .not', async () => {
    script(shape.toReply({ texts: [quoted] }))
    const plain = await failureOf(
      expect('W7').toFollowInstructions('Answer with the week label only.', { judge: shape.judge() }),
    )
    expect(plain.message).toContain('Instruction following: unjudgeable')
    expect(plain.message).toContain('not JSON as a whole')
    const negated = await failureOf(
      expect('W7').not.toFollowInstructions('Answer with the week label only.', { judge: shape.judge() }),
    )
    expect(negated.message).toContain('Instruction following: unjudgeable')
  })
})
