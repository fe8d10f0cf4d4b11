// Image-to-text assertions: the judge sees each image itself and fails the test with its reason.
// Run: node examples/run-example.mjs vitest-multimodal   (fake judge, or your AGENT_VERDICT_JUDGE)
import { describe, expect, test } from 'vitest'
import { ask } from './vision-agent'

const chart = new URL('./images/revenue-by-region.png', import.meta.url)
const invoice = new URL('./images/invoice.png', import.meta.url)
const loginScreen = new URL('./images/login-screen.png', import.meta.url)

describe('chart QA', () => {
  const question =
    'Which region has the highest average revenue? State the region name and the dollar amount shown in the chart.'

  test('the answer is grounded in the chart and does what was asked', async () => {
    const answer = await ask(chart, question)
    await expect(answer).toBeFaithfulToImage(chart, { instruction: question })
    await expect(answer).toBeCorrectForImage(chart, { instruction: question, reference: 'North America, at $14.10.' })
    await expect(answer).toFollowInstructions(question)
  })

  test('a misread amount is caught', async () => {
    // A wrong answer a weaker model gave: the judge must not call it faithful.
    await expect('North America has the highest average revenue, at $15.20.').not.toBeFaithfulToImage(chart, {
      instruction: question,
    })
  })

  test('a right but incomplete answer is correct yet does not follow the instruction', async () => {
    await expect('North America.').toBeCorrectForImage(chart, {
      instruction: question,
      reference: 'North America, at $14.10.',
    })
    await expect('North America.').not.toFollowInstructions(question)
  })
})

describe('invoice extraction', () => {
  const question =
    'Extract the invoice number, the invoice date and the total due as JSON with keys number, date, total.'

  test('the extracted fields are right, in the requested JSON, and good overall', async () => {
    const answer = await ask(invoice, question)
    await expect(answer).toBeCorrectForImage(invoice, {
      instruction: question,
      reference: '{"number": "INV-2026-0412", "date": "2026-03-18", "total": "$1,296.00"}',
    })
    await expect(answer).toFollowInstructions(question)
    await expect({ output: answer, input: question, image: invoice }).toHaveQuality({ min: 4 })
  })

  test('an invented payment term is caught', async () => {
    await expect(
      'Payment is due within 30 days; late payments incur a 2% monthly fee, and early payment earns a 5% discount.',
    ).not.toBeFaithfulToImage(invoice, { instruction: 'Summarize the payment terms in one sentence.' })
  })
})

describe('screenshot summary', () => {
  test('the controls described are exactly the ones on screen', async () => {
    const question = 'Describe the controls a user can interact with on this screen.'
    const answer = await ask(loginScreen, question)
    await expect(answer).toBeFaithfulToImage(loginScreen, { instruction: question })
    await expect(answer).toSatisfyRubric(
      'Names every interactive control on the screen (email field, password field, Sign in button, Forgot password link) and no control that is not there.',
      { image: loginScreen },
    )
  })

  test('controls that are not on the screen are caught', async () => {
    await expect(
      'There are Email and Password fields, a Sign in button, a Create account button and a Sign in with Google option.',
    ).not.toBeFaithfulToImage(loginScreen)
  })

  test('a verbose answer is still good quality, but breaks "name only"', async () => {
    const question = 'What is the name of the product shown? Answer with the name only.'
    const answer = await ask(loginScreen, question)
    await expect({ output: answer, input: question, image: loginScreen }).toHaveQuality({ min: 4 })
    await expect(answer).not.toFollowInstructions(question)
  })
})
