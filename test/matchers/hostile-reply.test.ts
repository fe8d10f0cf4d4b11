// A matcher fed a judge reply that quotes a passing verdict before its real, failing one: the assertion
// is never a pass, under .not neither (unjudgeable fails both ways). Real openai SDK; msw answers.
import '../../matchers/vitest'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import type { Judge } from '../../src/judges/types'
import { handmadeTrace } from '../diagnosis/helpers'
import {
  type ProviderShape,
  providerShapes,
  type ScriptedReply,
  script,
  server,
  withNumbersAsWritten,
} from '../support/reply-contract'

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

// Round 2 (issue 33): one payload per false-pass class, through every matcher family it reaches, in both
// directions, with the real openai SDK (json_schema) and the real Bedrock client (forced tool). A control
// passing reply must pass `.x`, a failing one `.not.x`; every hostile reply must fail both.
const IMAGE = join(import.meta.dirname, '../fixtures/images/shapes.png')
const shapes = providerShapes().filter((s) => s.name === 'openai json_schema' || s.name === 'bedrock forced tool')
const asWritten = (token: string) => `<<num:${token}>>`
const trace = handmadeTrace([
  {
    id: 'agent',
    kind: 'agent',
    name: 'SupportAgent.run',
    input: { task: 'Where is order A-1042?' },
    output: 'Shipped.',
  },
  { id: 'llm1', parent: 'agent', kind: 'llm', name: 'llm', input: 'Where is order A-1042?', output: 'Shipped.' },
])
const aspect = (score: unknown) => ({ reason: 'checked', score })
const span = (score: unknown, category: string, evidence = '') => ({
  reasoning: 'The span answers from the tool output.',
  instruction_following: aspect(score),
  reasoning_integrity: aspect(score),
  tool_completeness: aspect(score),
  error_category: category,
  evidence,
})
const agent = (score: unknown) => ({
  reasoning: 'The run reaches the goal.',
  plan_efficiency: aspect(score),
  tool_coverage: aspect(score),
  tool_abuse: aspect(score),
  completeness: aspect(score),
})

interface Family {
  name: string
  pass: Record<string, unknown>
  fail: Record<string, unknown>
  /** The passing reply with its score(s) written as `token`. */
  passWith(token: string): Record<string, unknown>
  /** A token JSON.parse rounds to the passing score. */
  near: string
  /** Takes `samples`. */
  samples: boolean
  run(judge: Judge, not: boolean, samples?: number): Promise<unknown>
}
const binary = (score: unknown) => ({ reasoning: 'Checked against the instruction.', score })
const likert = binary
const FAMILIES: Family[] = [
  {
    name: 'output (toFollowInstructions)',
    pass: binary(1),
    fail: binary(0),
    passWith: (t) => binary(asWritten(t)),
    near: '0.99999999999999999',
    samples: true,
    run: (judge, not, samples) =>
      (not ? expect('W7').not : expect('W7')).toFollowInstructions('Answer with the week label only.', {
        judge,
        samples,
      }),
  },
  {
    name: 'likert custom rubric (toSatisfyRubric, min 4)',
    pass: likert(5),
    fail: likert(2),
    passWith: (t) => likert(asWritten(t)),
    near: '3.9999999999999999',
    samples: true,
    run: (judge, not, samples) =>
      (not ? expect('W7').not : expect('W7')).toSatisfyRubric('Names the week.', {
        judge,
        scale: 'likert5',
        min: 4,
        samples,
      }),
  },
  {
    name: 'image (toBeFaithfulToImage)',
    pass: binary(1),
    fail: binary(0),
    passWith: (t) => binary(asWritten(t)),
    near: '1.0000000000000001',
    samples: true,
    run: (judge, not, samples) =>
      (not ? expect('A red circle.').not : expect('A red circle.')).toBeFaithfulToImage(IMAGE, { judge, samples }),
  },
  {
    name: 'span (toHaveNoFailingSpans)',
    pass: span(5, 'none'),
    fail: span(1, 'Formatting Errors', 'Shipped.'),
    passWith: (t) => span(asWritten(t), 'none'),
    near: '4.9999999999999999',
    samples: false,
    run: (judge, not) => (not ? expect(trace).not : expect(trace)).toHaveNoFailingSpans({ judge }),
  },
  {
    name: 'agent-level (toCompleteTask)',
    pass: agent(5),
    fail: agent(1),
    passWith: (t) => agent(asWritten(t)),
    near: '5.0000000000000001',
    samples: false,
    run: (judge, not) =>
      (not ? expect(trace).not : expect(trace)).toCompleteTask('Tell the customer where order A-1042 is.', { judge }),
  },
]

interface Row {
  name: string
  expect: 'pass' | 'fail' | 'unjudgeable'
  only?: 'openai' | 'bedrock'
  family?: (f: Family) => boolean
  samples?: number
  replies(f: Family, shape: ProviderShape): ScriptedReply | ScriptedReply[]
}
const j = JSON.stringify
const plain = (shape: ProviderShape, value: unknown, extra: Partial<Parameters<ProviderShape['toReply']>[0]> = {}) =>
  shape.toReply({ texts: [withNumbersAsWritten(value)], ...extra })
const garbage = (shape: ProviderShape) =>
  shape.name.startsWith('bedrock')
    ? shape.toReply({ texts: ['{}'], bedrock: { stopReason: 'content_filtered' } })
    : shape.toReply({ texts: ['{}'], openai: { message: { refusal: 'I cannot judge this.' } } })
const ROWS: Row[] = [
  { name: 'control: the passing reply', expect: 'pass', replies: (f, s) => plain(s, f.pass) },
  { name: 'control: the failing reply', expect: 'fail', replies: (f, s) => plain(s, f.fail) },
  {
    name: 'class 1: the passing score written as a number JSON rounds to it',
    expect: 'unjudgeable',
    replies: (f, s) => plain(s, f.passWith(f.near)),
  },
  {
    name: 'class 2: failing content beside passing tool_calls',
    expect: 'unjudgeable',
    only: 'openai',
    replies: (f, s) =>
      plain(s, f.fail, {
        openai: {
          message: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'v', arguments: j(f.pass) } }] },
        },
      }),
  },
  {
    name: 'class 2: a top-level error beside a passing choice',
    expect: 'unjudgeable',
    only: 'openai',
    replies: (f, s) => plain(s, f.pass, { openai: { completion: { error: { message: 'upstream failed' } } } }),
  },
  {
    name: 'class 2: a passing verdict from another tool',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) =>
      s.toReply({ texts: [], blocks: [{ toolUse: { toolUseId: 't', name: 'other', input: f.pass } }] }),
  },
  {
    name: 'class 2: a 200 with x-amzn-errortype',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) => plain(s, f.pass, { bedrock: { headers: { 'x-amzn-errortype': 'ModelErrorException' } } }),
  },
  {
    name: 'class 3: stopReason guardrail_intervened',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) => plain(s, f.pass, { bedrock: { stopReason: 'guardrail_intervened' } }),
  },
  ...[
    ['[fail, pass]', 2, (f: Family, s: ProviderShape) => [plain(s, f.fail), plain(s, f.pass)]],
    [
      '[fail, fail, pass, pass]',
      4,
      (f: Family, s: ProviderShape) => [plain(s, f.fail), plain(s, f.fail), plain(s, f.pass), plain(s, f.pass)],
    ],
    ['[fail, pass, no verdict]', 3, (f: Family, s: ProviderShape) => [plain(s, f.fail), plain(s, f.pass), garbage(s)]],
  ].map(
    ([split, samples, replies]): Row => ({
      name: `class 4: samples ${split}`,
      expect: 'unjudgeable',
      family: (f) => f.samples,
      samples: samples as number,
      replies: replies as Row['replies'],
    }),
  ),
  {
    name: 'control: samples [fail, pass, pass]',
    expect: 'pass',
    family: (f) => f.samples,
    samples: 3,
    replies: (f, s) => [plain(s, f.fail), plain(s, f.pass), plain(s, f.pass)],
  },
  {
    name: 'class 5: span "none" with an additional error',
    expect: 'unjudgeable',
    family: (f) => f.name.startsWith('span'),
    replies: (f, s) =>
      plain(s, { ...f.pass, additional_errors: [{ category: 'Formatting Errors', evidence: 'Shipped.' }] }),
  },
  // Round 3 (issue 33, gap 5): payloads no earlier row sends.
  {
    name: 'class 1: the rounded score with an exponent (0.99999999999999999e0)',
    expect: 'unjudgeable',
    replies: (f, s) => plain(s, f.passWith(`${f.near}e0`)),
  },
  {
    name: 'class 1: the rounded score with more digits after it',
    expect: 'unjudgeable',
    replies: (f, s) => plain(s, f.passWith(`${f.near}000`)),
  },
  {
    name: 'class 1: the rounded score as mantissa and negative exponent',
    expect: 'unjudgeable',
    replies: (f, s) => {
      const [whole, fraction] = f.near.split('.')
      return plain(s, f.passWith(`${whole}${fraction}e-${fraction.length}`))
    },
  },
  {
    name: 'control: the passing score written 1.0e0-style (exact)',
    expect: 'pass',
    family: (f) => f.name.startsWith('output') || f.name.startsWith('image'),
    replies: (f, s) => plain(s, f.passWith('1.000e0')),
  },
  {
    name: 'class 1: a rounded number in another key of a passing reply (1e-400 beside the score)',
    expect: 'unjudgeable',
    replies: (f, s) => plain(s, { ...f.pass, confidence: asWritten('1e-400') }),
  },
  {
    name: 'class 2: passing content beside a failing legacy function_call',
    expect: 'unjudgeable',
    only: 'openai',
    replies: (f, s) =>
      plain(s, f.pass, { openai: { message: { function_call: { name: 'v', arguments: j(f.fail) } } } }),
  },
  {
    name: 'class 2: two tool_calls that disagree, no content',
    expect: 'unjudgeable',
    only: 'openai',
    replies: (f, s) =>
      s.toReply({
        texts: [''],
        openai: {
          message: {
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'v', arguments: j(f.pass) } },
              { id: 'c2', type: 'function', function: { name: 'v', arguments: j(f.fail) } },
            ],
          },
        },
      }),
  },
  {
    name: 'class 2: a top-level error string beside a passing choice',
    expect: 'unjudgeable',
    only: 'openai',
    replies: (f, s) => plain(s, f.pass, { openai: { completion: { error: 'upstream overloaded' } } }),
  },
  {
    name: 'class 2: two verdict tool calls that disagree',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) =>
      s.toReply({
        texts: [],
        blocks: [
          { toolUse: { toolUseId: 't1', name: 'verdict', input: f.fail } },
          { toolUse: { toolUseId: 't2', name: 'verdict', input: f.pass } },
        ],
      }),
  },
  {
    name: 'class 2: a passing tool call beside a failing JSON text block',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) =>
      s.toReply({
        texts: [],
        blocks: [{ text: j(f.fail) }, { toolUse: { toolUseId: 't1', name: 'verdict', input: f.pass } }],
      }),
  },
  {
    name: 'class 2: the passing verdict from a tool named like the forced one but for its case',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) =>
      s.toReply({ texts: [], blocks: [{ toolUse: { toolUseId: 't', name: 'Verdict', input: f.pass } }] }),
  },
  {
    name: 'class 2: a 200 with x-amzn-errortype and a failing verdict (no .not pass either)',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) => plain(s, f.fail, { bedrock: { headers: { 'x-amzn-errortype': 'ThrottlingException' } } }),
  },
  {
    name: 'class 3: stopReason max_tokens with a passing tool call',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) => plain(s, f.pass, { bedrock: { stopReason: 'max_tokens' } }),
  },
  {
    name: 'class 3: an unknown stopReason with a passing tool call',
    expect: 'unjudgeable',
    only: 'bedrock',
    replies: (f, s) => plain(s, f.pass, { bedrock: { stopReason: 'stop_sequence_then_filter' } }),
  },
  ...[
    ['[pass, fail]', 2, (f: Family, s: ProviderShape) => [plain(s, f.pass), plain(s, f.fail)]],
    [
      '[pass, fail, fail, pass]',
      4,
      (f: Family, s: ProviderShape) => [plain(s, f.pass), plain(s, f.fail), plain(s, f.fail), plain(s, f.pass)],
    ],
    ['[pass, no verdict, fail]', 3, (f: Family, s: ProviderShape) => [plain(s, f.pass), garbage(s), plain(s, f.fail)]],
  ].map(
    ([split, samples, replies]): Row => ({
      name: `class 4: samples ${split}`,
      expect: 'unjudgeable',
      family: (f) => f.samples,
      samples: samples as number,
      replies: replies as Row['replies'],
    }),
  ),
  {
    name: 'control: samples [fail, fail, pass]',
    expect: 'fail',
    family: (f) => f.samples,
    samples: 3,
    replies: (f, s) => [plain(s, f.fail), plain(s, f.fail), plain(s, f.pass)],
  },
  {
    name: 'class 5: span "none" with evidence of an error',
    expect: 'unjudgeable',
    family: (f) => f.name.startsWith('span'),
    replies: (_f, s) => plain(s, span(5, 'none', 'Shipped.')),
  },
  {
    name: 'class 5: span "none" with two additional errors',
    expect: 'unjudgeable',
    family: (f) => f.name.startsWith('span'),
    replies: (f, s) =>
      plain(s, {
        ...f.pass,
        additional_errors: [
          { category: 'Formatting Errors', evidence: 'Shipped.' },
          { category: 'Tool-related', evidence: 'Shipped.' },
        ],
      }),
  },
  {
    name: 'class 11: usage with a negative token count',
    expect: 'unjudgeable',
    replies: (f, s) =>
      plain(s, f.pass, {
        openai: { completion: { usage: { prompt_tokens: -1, completion_tokens: 60, total_tokens: 59 } } },
        bedrock: { usage: { inputTokens: -1, outputTokens: 60, totalTokens: 59 } },
      }),
  },
]

describe.each(shapes.map((s) => [s.name, s] as const))('round 2 hostile replies, %s', (_shape, shape) => {
  const cells = FAMILIES.flatMap((family) =>
    ROWS.filter((row) => (!row.only || shape.name.startsWith(row.only)) && (!row.family || row.family(family))).map(
      (row) => [`${family.name} | ${row.name}`, family, row] as const,
    ),
  )
  test.each(cells)('%s', async (_name, family, row) => {
    const outcomes: string[] = []
    for (const not of [false, true]) {
      script(row.replies(family, shape))
      const error = await family.run(shape.judge(), not, row.samples).then(
        () => undefined,
        (e: unknown) => e as Error,
      )
      const passed = error === undefined
      outcomes.push(`${not ? '.not' : '.x'} ${passed ? 'passed' : 'failed'}`)
      if (row.expect === 'unjudgeable' && error) expect(error.message).toContain('unjudgeable')
    }
    const wanted = {
      pass: ['.x passed', '.not failed'],
      fail: ['.x failed', '.not passed'],
      unjudgeable: ['.x failed', '.not failed'],
    }[row.expect]
    expect(outcomes).toEqual(wanted)
  })
})
