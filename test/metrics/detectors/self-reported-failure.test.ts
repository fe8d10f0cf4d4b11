// self-reported-failure on small hand-built model calls: the model's own admission that its last action
// misfired, and an observation that printed a string one character per line; and what must not fire.
import { describe, expect, it } from 'vitest'
import { detect } from '../../../src/metrics/detectors'
import { detectSelfReportedFailures } from '../../../src/metrics/detectors/self-reported-failure'
import { newSpan } from '../../../src/trace/readers/common'
import type { Span } from '../../../src/trace/span'
import { Trace } from '../../../src/trace/trace'

function call(observation: string, answer: string, kind: 'llm' | 'tool' = 'llm'): Trace {
  const llm: Span = Object.assign(newSpan('llm1', null, 't', 'chat', 1n, 2n, 'ok', '', {}, []), {
    kind,
    input: [
      { role: 'system', content: 'You are an agent. Write Thought: then Code:.' },
      { role: 'user', content: observation },
    ],
    output: [{ role: 'assistant', content: answer }],
  })
  return new Trace([llm])
}

const code = '\nCode:\n```py\nprint(files[:20])\n```'

describe('self-reported-failure: the model says its previous action did not work', () => {
  it.each([
    "It seems the regex pattern didn't find any matching file.",
    'The output was not properly formatted.',
    "I'm not getting the file paths as expected.",
    'I had an issue with the triple quotes in my string.',
    'It appears that I am having difficulty extracting the files.',
  ])('names a Formatting Error on the call and quotes its own sentence verbatim: %s', (sentence) => {
    const trace = call(
      'Observation:\nExecution logs:\nFound 0 files\nLast output from code snippet:\nNone',
      `Thought: ${sentence} Let me try another way.${code}`,
    )
    const [f, ...rest] = detectSelfReportedFailures(trace)
    expect(rest).toEqual([])
    expect(f).toMatchObject({ spanId: 'llm1', category: 'Formatting Errors', detector: 'self-reported-failure' })
    expect(f.evidence).toContain(sentence)
    expect(JSON.stringify(trace.get('llm1')!.output)).toContain(f.evidence)
  })

  it.each([
    'It seems the file contains the function we need.',
    'Now I can see the repository structure.',
    'Great! The search found the file.',
    'It looks like the tests pass now.',
    // The admission is not the opening sentence: a plan that mentions a possible problem later is not one.
    'I will search the tree. If it is not in the format I expect, I will print it.',
  ])('says nothing when the opening sentence reports progress: %s', (sentence) => {
    expect(detectSelfReportedFailures(call('Observation:\nok', `Thought: ${sentence}${code}`))).toEqual([])
  })

  it('reads the reasoning, not the code: an admission inside a string or comment of the code is not one', () => {
    const answer =
      'Thought: Let me print the tree.\nCode:\n```py\n# It seems the regex didn\'t match anything.\nprint("It seems the output was not properly formatted.")\n```'
    expect(detectSelfReportedFailures(call('Observation:\nok', answer))).toEqual([])
  })

  it('reads model calls only: a tool span that echoes such a sentence is not the model admitting anything', () => {
    expect(detectSelfReportedFailures(call('x', "It seems the regex pattern didn't find any file.", 'tool'))).toEqual(
      [],
    )
  })

  it('a hostile huge output with no sentence end costs one bounded look and finds nothing', () => {
    expect(detectSelfReportedFailures(call('x', `It seems ${'a'.repeat(2_000_000)}`))).toEqual([])
  })
})

describe('self-reported-failure: a string printed one character per line', () => {
  const spelled = 'Top level directories:\nD\ni\nr\ne\nc\nt\no\nr\ny\n \nLast output from code snippet:\nNone'

  it('names a Formatting Error on the call that sees it, quoting the observation verbatim', () => {
    const trace = call(`Observation:\nExecution logs:\n${spelled}`, `Thought: Now let me look at the files.${code}`)
    const [f, ...rest] = detectSelfReportedFailures(trace)
    expect(rest).toEqual([])
    expect(f).toMatchObject({ spanId: 'llm1', category: 'Formatting Errors' })
    expect(f.evidence).toBe('Top level directories:\nD\ni\nr\ne\nc\nt\no\nr\ny')
    expect(JSON.stringify(trace.get('llm1')!.input)).toContain(JSON.stringify(f.evidence).slice(1, -1))
  })

  it('ignores a directory tree drawn with box characters and short one-letter runs', () => {
    const tree = 'repo/\n│\n│\n│\n│\n│\n│\n│\n├── a.py\n└── b.py'
    expect(
      detectSelfReportedFailures(
        call(`Observation:\n${tree}\nanswers:\na\nb\nc\nd\n`, `Thought: Now I see the layout.${code}`),
      ),
    ).toEqual([])
  })

  it('runs inside detect() and names one finding per call even when both signs show', () => {
    const trace = call(`Observation:\n${spelled}`, `Thought: The output was not properly formatted.${code}`)
    expect(detect(trace).filter((f) => f.detector === 'self-reported-failure')).toHaveLength(1)
  })
})
