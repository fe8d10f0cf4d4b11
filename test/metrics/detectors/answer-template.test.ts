// Where answer-template looks for the template sentence in a prompt, on small hand-built model calls.
import { describe, expect, it } from 'vitest'
import { detectAnswerTemplate } from '../../../src/metrics/detectors/answer-template'
import { newSpan } from '../../../src/trace/readers/common'
import type { Span } from '../../../src/trace/span'
import { Trace } from '../../../src/trace/trace'

function call(prompt: string, answer: string): Trace {
  const llm: Span = Object.assign(newSpan('llm1', null, 't', 'chat', 1n, 2n, 'ok', '', {}, []), {
    kind: 'llm' as const,
    input: [{ role: 'user', content: prompt }],
    output: [{ role: 'assistant', content: answer }],
  })
  return new Trace([llm])
}

const TEMPLATE = 'To output the final answer, use the following template: FINAL ANSWER: [YOUR FINAL ANSWER].'

describe('answer-template', () => {
  it('finds the template after words that contain "template" ("contemplate", "templates")', () => {
    const prompt = `Contemplate the question; templates vary. ${'Think step by step. '.repeat(20)}${TEMPLATE}`
    const [f] = detectAnswerTemplate(call(prompt, 'I cannot answer that.'))
    expect(f).toMatchObject({
      spanId: 'llm1',
      category: 'Instruction Non-compliance',
      evidence: 'I cannot answer that.',
    })
    expect(f.reason).toContain('does not start with "FINAL ANSWER:"')
    expect(detectAnswerTemplate(call(prompt, 'FINAL ANSWER: 42'))).toEqual([])
  })

  it('finds "template" at the very start and end of a prompt, and says nothing without one', () => {
    expect(detectAnswerTemplate(call('template: use the following template: ANSWER: [x]', 'no'))).toHaveLength(1)
    expect(detectAnswerTemplate(call('use the following template: ANSWER: [x] template', 'no'))).toHaveLength(1)
    expect(detectAnswerTemplate(call('Reply briefly, no form required. mplate emplate templat', 'no'))).toEqual([])
  })
})
