// Text-only judge assertions with Jest. Run: node examples/run-example.mjs jest-text
import { describe, expect, test } from '@jest/globals'
import { REFUND_POLICY, reply } from './support-bot'

describe('refund questions', () => {
  test('the answer is grounded in the policy and correct', async () => {
    const question = 'How long do refunds take?'
    const answer = await reply(question)
    await expect(answer).toBeFaithfulTo(REFUND_POLICY, { instruction: question })
    await expect({ output: answer, input: question }).toBeCorrect({
      reference: 'Within 5 business days of the return reaching the warehouse.',
    })
    await expect({ output: answer, input: question }).toHaveQuality({ min: 4 })
  })

  test('the answer keeps to the requested form and tone', async () => {
    const question = 'Can I return a gift card? Answer yes or no, then one sentence why.'
    const answer = await reply(question)
    await expect(answer).toFollowInstructions(question)
    await expect(answer).toSatisfyRubric(
      'Polite, states the decision first, and cites the policy rather than inventing an exception.',
    )
  })

  test('an invented promise is caught', async () => {
    // A reply a previous prompt version produced: the policy promises nothing of the kind.
    await expect(
      'Refunds take 5 business days, and we add a 10% store credit bonus for the inconvenience.',
    ).not.toBeFaithfulTo(REFUND_POLICY)
  })
})
