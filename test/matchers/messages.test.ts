// Failure messages print through the runner's own helpers (this.utils) when the runner gives them, and read
// the same, uncoloured, when a matcher is called as a plain function.
import { describe, expect, test } from 'vitest'
import type { MatcherUtils } from '../../runner/context'
import { terminalMessage } from '../../runner/call-site'
import { usageMessage, verdictMessage } from '../../matchers/messages'
import type { Verdict } from '../../src/verdict/verdict'

const verdict: Verdict = {
  metric: 'faithfulness',
  level: 'output',
  scale: 'binary',
  raw: 0,
  score: 0,
  threshold: 1,
  pass: false,
  outcome: 'fail',
  reason: 'the chart shows North America',
  subject: 'EMEA   leads\nwith "$10.85".',
}

/** A runner's utils that mark what they printed, so the test sees which parts went through them. */
function markingUtils(): MatcherUtils & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    matcherHint: (name, received, expected, options) => {
      calls.push(`hint:${name}`)
      return `<hint ${options?.isNot ? 'not.' : ''}${name} ${received} ${expected}>`
    },
    printReceived: (value) => {
      calls.push('received')
      return `<received ${JSON.stringify(value)}>`
    },
    printExpected: (value) => `<expected ${JSON.stringify(value)}>`,
  }
}

describe('messages through the runner utils', () => {
  test('the hint and the received output are printed by the runner; the verdict lines stay ours', () => {
    const utils = markingUtils()
    const message = verdictMessage({
      name: 'toBeFaithfulToImage',
      args: 'image',
      title: 'Faithfulness',
      isNot: true,
      verdict,
      utils,
    })
    expect(utils.calls).toEqual(['hint:toBeFaithfulToImage', 'received'])
    expect(message.split('\n')).toEqual([
      '<hint not.toBeFaithfulToImage received image>',
      '',
      'Faithfulness: fail (0/1, min 1) — expected it not to pass',
      'Reason: the chart shows North America',
      'Received: <received "EMEA leads with \\"$10.85\\".">',
    ])
  })

  test('a long received output is cut on one line before the runner prints it', () => {
    const utils = markingUtils()
    const message = verdictMessage({
      name: 'toBeCorrect',
      title: 'Correctness',
      verdict: { ...verdict, subject: `${'word '.repeat(200)}end` },
      utils,
    })
    const printed = JSON.parse(
      message
        .split('\n')
        .find((l) => l.startsWith('Received: '))!
        .slice('Received: <received '.length, -1),
    ) as string
    expect(printed).toHaveLength(240)
    expect(printed.endsWith('…')).toBe(true)
  })

  test('usage errors use the runner hint too', () => {
    const utils = markingUtils()
    expect(usageMessage('toBeCorrect', false, '', 'received must be a string', utils)).toBe(
      '<hint toBeCorrect received >\n\nreceived must be a string',
    )
  })

  test('without utils (a matcher called as a plain function) the same words, uncoloured', () => {
    expect(
      verdictMessage({ name: 'toBeFaithfulToImage', args: 'image', title: 'Faithfulness', verdict }).split('\n'),
    ).toEqual([
      'expect(received).toBeFaithfulToImage(image)',
      '',
      'Faithfulness: fail (0/1, min 1)',
      'Reason: the chart shows North America',
      'Received: "EMEA leads with \\"$10.85\\"."',
    ])
  })
})

// A judge can quote anything, and an agent can name a span anything: none of it may move the cursor or rewrite a
// line of the runner's output (an adversarial review printed "Rubric: pass" over a failure this way).
describe('judged text in messages cannot rewrite the terminal', () => {
  const hostile =
    'looks fine\u001b[1A\u001b[2K\rRubric: pass (1/1, min 1)\u001b]8;;https://x.test\u0007link\u001b]8;;\u0007\u202e'

  test('the reason, the cause and the received output are shown with visible stand-ins', () => {
    for (const v of [
      { ...verdict, reason: hostile, subject: hostile },
      { ...verdict, outcome: 'unjudgeable' as const, score: null, reason: hostile },
    ]) {
      const message = verdictMessage({ name: 'toSatisfyRubric', args: 'rubric', title: 'Rubric', verdict: v })
      expect(message).not.toMatch(/[\u001b\r\u0007\u202e]/)
      expect(message).toContain('looks fine␛[1A␛[2K␍Rubric: pass')
    }
  })

  test('a whole message keeps the runner colours and lines, and loses every other escape', () => {
    const coloured =
      '\u001b[2mexpect(\u001b[22m\u001b[31mreceived\u001b[39m\u001b[2m)\u001b[22m\nReason: x\u001b[1A\r\u009b2K'
    expect(terminalMessage(coloured)).toBe(
      '\u001b[2mexpect(\u001b[22m\u001b[31mreceived\u001b[39m\u001b[2m)\u001b[22m\nReason: x␛[1A␍\ufffd2K',
    )
  })
})
