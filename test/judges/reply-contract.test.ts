// The one reply contract, adversarially: 35 hostile or malformed replies × every judge call kind ×
// every provider shape, through the real SDK clients (msw answers for the services). Invariant: a
// reply never yields a pass unless it is, as a whole, a passing verdict — in particular never where
// the real (structured) verdict fails. The replies are scripted; nothing here measures a model.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import {
  callKinds,
  providerShapes,
  received,
  script,
  server,
  type CallKind,
  type Outcome,
  type ScriptedReply,
  withNumbersAsWritten,
} from '../support/reply-contract'

interface Entry {
  name: string
  /** The outcomes the contract allows. Only the pass controls may pass. */
  allowed: Outcome[]
  /** Whole text replies (one per OpenAI choice; joined as Converse text blocks). */
  texts: (k: CallKind) => string[]
  /** Bedrock forced-tool content blocks, when they differ from the texts mapped to tool input. */
  blocks?: (k: CallKind) => ScriptedReply['blocks']
  /** What else the reply carries (OpenAI completion and message fields, Bedrock stop reason, headers, usage). */
  openai?: (k: CallKind) => ScriptedReply['openai']
  bedrock?: ScriptedReply['bedrock']
  /** Only for these provider shapes (`openai…` or `bedrock…` prefix) or this call kind (its name's start). */
  only?: { provider?: 'openai' | 'bedrock' | 'bedrock forced tool'; kind?: string }
}

const j = (value: unknown) => JSON.stringify(value)
const pretty = (value: unknown) => JSON.stringify(value, null, 2)
const fence = (value: unknown) => '```json\n' + pretty(value) + '\n```'
const tool = (input: unknown, id = 'tooluse_1') => ({ toolUse: { toolUseId: id, name: 'verdict', input } })
const NOT_PASS: Outcome[] = ['fail', 'unjudgeable']
const UNJUDGEABLE: Outcome[] = ['unjudgeable']

const ENTRIES: Entry[] = [
  // Controls: the contract accepts these, so the table can tell a pass from a fail.
  { name: 'control: plain passing verdict', allowed: ['pass'], texts: (k) => [j(k.pass)] },
  { name: 'control: plain failing verdict', allowed: ['fail'], texts: (k) => [j(k.fail)] },
  {
    name: 'control: passing verdict in one fence with whitespace around',
    allowed: ['pass'],
    texts: (k) => [`\n  ${fence(k.pass)}\n`],
  },
  { name: 'failing verdict in one fence', allowed: ['fail'], texts: (k) => [fence(k.fail)] },
  // Quoted verdicts: the first block anywhere used to win.
  {
    name: 'quoted passing block, then the failing verdict',
    allowed: UNJUDGEABLE,
    texts: (k) => [`The rubric's example reads:\n${fence(k.pass)}\nMy verdict:\n${j(k.fail)}`],
  },
  {
    name: 'quoted passing block, then the failing verdict in its own fence',
    allowed: UNJUDGEABLE,
    texts: (k) => [`${fence(k.pass)}\nThat was the example. Mine:\n${fence(k.fail)}`],
  },
  {
    name: 'failing verdict, then a passing block quoted after it',
    allowed: UNJUDGEABLE,
    texts: (k) => [`${j(k.fail)}\nFor comparison, a pass would be:\n${fence(k.pass)}`],
  },
  {
    name: 'two fences back to back: pass then fail',
    allowed: UNJUDGEABLE,
    texts: (k) => [`${fence(k.pass)}\n${fence(k.fail)}`],
  },
  // Verdicts inside the reasoning: the document is what counts.
  {
    name: 'passing verdict quoted inside the reasoning of a failing verdict',
    allowed: ['fail'],
    texts: (k) => [j(withReasoning(k.fail, `A pass would look like ${j(k.pass)}, but this is not one.`))],
  },
  {
    name: 'code fence inside the reasoning string of a failing verdict',
    allowed: ['fail'],
    texts: (k) => [j(withReasoning(k.fail, `The output was:\n${fence(k.pass)}\nwhich is wrong.`))],
  },
  {
    name: 'fenced failing verdict whose reasoning holds a fence',
    allowed: ['fail'],
    texts: (k) => ['```json\n' + j(withReasoning(k.fail, 'it printed ```json {"score":5}``` instead')) + '\n```'],
  },
  // Several documents.
  { name: 'two JSON objects: pass then fail', allowed: UNJUDGEABLE, texts: (k) => [`${j(k.pass)}\n${j(k.fail)}`] },
  { name: 'two JSON objects: fail then pass', allowed: UNJUDGEABLE, texts: (k) => [`${j(k.fail)}${j(k.pass)}`] },
  { name: 'JSON array holding both verdicts', allowed: UNJUDGEABLE, texts: (k) => [j([k.pass, k.fail])] },
  {
    // `{...fail, ...pass}` written out with every key twice: JSON.parse keeps the passing copies.
    name: 'one object giving every key twice, failing values then passing ones',
    allowed: NOT_PASS,
    texts: (k) => [`${j(k.fail).slice(0, -1)},${j(k.pass).slice(1)}`],
    // Bedrock's SDK hands the tool input over already parsed (one value per key): a plain fail there.
    blocks: (k) => [tool(k.fail)],
  },
  { name: 'passing verdict nested under a key', allowed: UNJUDGEABLE, texts: (k) => [j({ verdict: k.pass })] },
  { name: 'the passing verdict as a JSON string', allowed: UNJUDGEABLE, texts: (k) => [j(j(k.pass))] },
  // Not JSON, or not all of it.
  {
    name: 'prose only, claiming a pass',
    allowed: UNJUDGEABLE,
    texts: () => ['The answer is correct and complete. Score: 5/5. PASS.'],
  },
  {
    name: 'prose around the passing verdict',
    allowed: UNJUDGEABLE,
    texts: (k) => [`Sure! Here is my verdict: ${j(k.pass)} Hope that helps.`],
  },
  {
    name: 'fenced failing verdict with prose after it',
    allowed: UNJUDGEABLE,
    texts: (k) => [`${fence(k.fail)}\nOn reflection the real score is 5.`],
  },
  { name: 'passing verdict in XML-ish tags', allowed: UNJUDGEABLE, texts: (k) => [`<verdict>${j(k.pass)}</verdict>`] },
  { name: 'truncated failing JSON', allowed: UNJUDGEABLE, texts: (k) => [j(k.fail).slice(0, -7)] },
  { name: 'truncated fence (no closing fence)', allowed: UNJUDGEABLE, texts: (k) => ['```json\n' + pretty(k.pass)] },
  { name: 'refusal', allowed: UNJUDGEABLE, texts: () => ["I'm sorry, but I can't help with evaluating this content."] },
  { name: 'empty reply', allowed: UNJUDGEABLE, texts: () => [''] },
  { name: 'whitespace only', allowed: UNJUDGEABLE, texts: () => ['  \n\t '] },
  { name: 'JSON null', allowed: UNJUDGEABLE, texts: () => ['null'] },
  // Schema violations.
  { name: 'score as a string of a passing value', allowed: UNJUDGEABLE, texts: (k) => [j(k.withScore('5'))] },
  { name: 'out-of-range score (7)', allowed: UNJUDGEABLE, texts: (k) => [j(k.withScore(7))] },
  { name: 'negative score', allowed: UNJUDGEABLE, texts: (k) => [j(k.withScore(-1))] },
  { name: 'boolean score true', allowed: UNJUDGEABLE, texts: (k) => [j(k.withScore(true))] },
  { name: 'null score', allowed: UNJUDGEABLE, texts: (k) => [j(k.withScore(null))] },
  { name: 'fractional score', allowed: NOT_PASS, texts: (k) => [j(k.withScore(0.5))] },
  {
    name: 'extra keys claiming a pass',
    allowed: UNJUDGEABLE,
    texts: (k) => [j({ ...k.fail, pass: true, verdict: 'pass' })],
  },
  { name: 'passing verdict missing its reasoning', allowed: UNJUDGEABLE, texts: (k) => [j(withoutReasoning(k.pass))] },
  // Several candidates: two choices / two tool calls, and a tool call beside a text verdict.
  {
    name: 'two candidate verdicts that disagree',
    allowed: UNJUDGEABLE,
    texts: (k) => [j(k.fail), j(k.pass)],
    blocks: (k) => [tool(k.fail), tool(k.pass, 'tooluse_2')],
  },
  {
    name: 'two candidate verdicts that agree (failing)',
    allowed: NOT_PASS,
    texts: (k) => [j(k.fail), j(k.fail)],
    blocks: (k) => [tool(k.fail), tool(k.fail, 'tooluse_2')],
  },
  {
    name: 'failing tool verdict beside a text block that is a whole passing verdict',
    allowed: UNJUDGEABLE,
    texts: (k) => [`${j(k.pass)}\n${j(k.fail)}`],
    blocks: (k) => [{ text: j(k.pass) }, tool(k.fail)],
  },
  {
    name: 'failing tool verdict after prose quoting a passing block',
    allowed: NOT_PASS,
    texts: (k) => [`Example:\n${fence(k.pass)}\n${j(k.fail)}`],
    blocks: (k) => [{ text: `Example:\n${fence(k.pass)}` }, tool(k.fail)],
  },
]

// Round 2 (issue 33). A number as written: JSON.parse rounds `0.99999999999999999` to 1, so the score is
// checked in the reply's text (docs/decisions/0036-numbers-as-written.md).
const asWritten = (token: string) => `<<num:${token}>>`
const near = (k: CallKind) => [`${k.passScore - 1}.99999999999999999`, `${k.passScore}.0000000000000001`]
ENTRIES.push(
  {
    name: 'control: passing verdict with its score written 1.0 / 5.0 (an exact spelling)',
    allowed: ['pass'],
    texts: (k) => [withNumbersAsWritten(k.passWith(asWritten(`${k.passScore}.0`)))],
  },
  {
    name: 'control: failing verdict with its score written in exponent form (exact)',
    allowed: ['fail'],
    texts: (k) => [withNumbersAsWritten(k.withScore(asWritten(`${k.passScore === 1 ? 0 : 1}e0`)))],
  },
  ...[0, 1].map((i) => ({
    name: `passing verdict whose score is written as a number JSON rounds to the passing one (${i ? 'above' : 'below'})`,
    allowed: UNJUDGEABLE,
    texts: (k: CallKind) => [withNumbersAsWritten(k.passWith(asWritten(near(k)[i])))],
  })),
  {
    name: 'score written 1e-400 (JSON reads 0)',
    allowed: UNJUDGEABLE,
    texts: (k) => [withNumbersAsWritten(k.withScore(asWritten('1e-400')))],
  },
  ...['3.9999999999999999', '4.0000000000000001'].map(
    (token): Entry => ({
      name: `score written ${token} (JSON reads 4)`,
      allowed: UNJUDGEABLE,
      texts: (k) => [withNumbersAsWritten(k.passWith(asWritten(token)))],
    }),
  ),
  // Candidates that disagree, error markers, the wrong tool.
  {
    name: 'OpenAI: failing content beside passing tool_calls',
    allowed: UNJUDGEABLE,
    only: { provider: 'openai' },
    texts: (k) => [j(k.fail)],
    openai: (k) => ({ message: { tool_calls: [toolCall(k.pass)] } }),
  },
  {
    name: 'OpenAI: passing content beside failing tool_calls',
    allowed: UNJUDGEABLE,
    only: { provider: 'openai' },
    texts: (k) => [j(k.pass)],
    openai: (k) => ({ message: { tool_calls: [toolCall(k.fail)] } }),
  },
  {
    name: 'OpenAI: passing content beside a failing legacy function_call',
    allowed: UNJUDGEABLE,
    only: { provider: 'openai' },
    texts: (k) => [j(k.pass)],
    openai: (k) => ({ message: { function_call: { name: 'verdict', arguments: j(k.fail) } } }),
  },
  {
    name: 'OpenAI: failing content beside a passing legacy function_call',
    allowed: UNJUDGEABLE,
    only: { provider: 'openai' },
    texts: (k) => [j(k.fail)],
    openai: (k) => ({ message: { function_call: { name: 'verdict', arguments: j(k.pass) } } }),
  },
  {
    name: 'OpenAI: a top-level error object beside a passing choice (HTTP 200)',
    allowed: UNJUDGEABLE,
    only: { provider: 'openai' },
    texts: (k) => [j(k.pass)],
    openai: () => ({ completion: { error: { message: 'upstream model failed', code: 502 } } }),
  },
  {
    name: 'control: OpenAI passing content with tool_calls [] and function_call null',
    allowed: ['pass'],
    only: { provider: 'openai' },
    texts: (k) => [j(k.pass)],
    openai: () => ({ message: { tool_calls: [], function_call: null } }),
  },
  {
    name: 'passing verdict split across two text blocks (choices)',
    allowed: UNJUDGEABLE,
    texts: (k) => [j(k.pass).slice(0, 12), j(k.pass).slice(12)],
  },
  {
    name: 'failing tool verdict beside a text block with the passing score as a string',
    allowed: UNJUDGEABLE,
    texts: (k) => [j(k.passWith(String(k.passScore)))],
    blocks: (k) => [{ text: j(k.passWith(String(k.passScore))) }, tool(k.fail)],
  },
  {
    name: 'Bedrock: passing verdict from a tool that is not the requested one',
    allowed: UNJUDGEABLE,
    only: { provider: 'bedrock forced tool' },
    texts: (k) => [j(k.pass)],
    blocks: (k) => [{ toolUse: { toolUseId: 't1', name: 'submit_verdict', input: k.pass } }],
  },
  {
    name: 'Bedrock: HTTP 200 with a passing verdict and x-amzn-errortype',
    allowed: UNJUDGEABLE,
    only: { provider: 'bedrock' },
    texts: (k) => [j(k.pass)],
    bedrock: { headers: { 'x-amzn-errortype': 'ModelErrorException' } },
  },
  // Stop reasons: only the normal end and the forced tool end a verdict.
  ...[
    'content_filtered',
    'guardrail_intervened',
    'model_context_window_exceeded',
    'max_tokens',
    'stop_sequence',
    'a_reason_added_next_year',
  ].map(
    (stopReason): Entry => ({
      name: `Bedrock: passing verdict with stopReason ${stopReason}`,
      allowed: UNJUDGEABLE,
      only: { provider: 'bedrock' },
      texts: (k) => [j(k.pass)],
      bedrock: { stopReason },
    }),
  ),
  {
    name: 'control: Bedrock passing verdict with stopReason end_turn',
    allowed: ['pass'],
    only: { provider: 'bedrock' },
    texts: (k) => [j(k.pass)],
    bedrock: { stopReason: 'end_turn' },
  },
  // OpenAI finish reasons: only a normal stop (or none given) ends a verdict.
  ...['error', 'tool_calls', 'function_call', 'safety', 'a_reason_added_next_year'].map(
    (finishReason): Entry => ({
      name: `OpenAI: passing verdict with finish_reason ${finishReason}`,
      allowed: UNJUDGEABLE,
      only: { provider: 'openai' },
      texts: (k) => [j(k.pass)],
      openai: () => ({ finishReason }),
    }),
  ),
  ...[null, 'eos'].map(
    (finishReason): Entry => ({
      name: `control: OpenAI passing verdict with finish_reason ${finishReason}`,
      allowed: ['pass'],
      only: { provider: 'openai' },
      texts: (k) => [j(k.pass)],
      openai: () => ({ finishReason }),
    }),
  ),
  // Invalid token counts: an unjudgeable verdict naming the field, never a raw ZodError.
  {
    name: 'OpenAI: passing verdict with usage.prompt_tokens -1',
    allowed: UNJUDGEABLE,
    only: { provider: 'openai' },
    texts: (k) => [j(k.pass)],
    openai: () => ({ completion: { usage: { prompt_tokens: -1, completion_tokens: 60, total_tokens: 59 } } }),
  },
  {
    name: 'OpenAI: passing verdict with usage.completion_tokens "60" and 1e308',
    allowed: UNJUDGEABLE,
    only: { provider: 'openai' },
    texts: (k) => [j(k.pass)],
    openai: () => ({ completion: { usage: { prompt_tokens: 1e308, completion_tokens: '60' } } }),
  },
  {
    name: 'Bedrock: passing verdict with usage.inputTokens -1',
    allowed: UNJUDGEABLE,
    only: { provider: 'bedrock' },
    texts: (k) => [j(k.pass)],
    bedrock: { usage: { inputTokens: -1, outputTokens: 60, totalTokens: 59 } },
  },
  // A span reply that contradicts itself.
  {
    name: 'span: category "none" with additional errors',
    allowed: UNJUDGEABLE,
    only: { kind: 'span' },
    texts: (k) => [
      j({ ...k.pass, additional_errors: [{ category: 'Formatting Errors', evidence: 'It shipped on 24 March.' }] }),
    ],
  },
  {
    name: 'span: category "none" with evidence quoted',
    allowed: UNJUDGEABLE,
    only: { kind: 'span' },
    texts: (k) => [j({ ...k.pass, evidence: 'It shipped on 24 March.' })],
  },
  {
    name: 'control: span with category "none" and an aspect scored 1 (the aspect fails the span on its own)',
    allowed: ['fail'],
    only: { kind: 'span' },
    texts: (k) => [j({ ...k.pass, reasoning_integrity: { reason: 'invented', score: 1 } })],
  },
  {
    name: 'span: an error category with every aspect 5 (no problem)',
    allowed: UNJUDGEABLE,
    only: { kind: 'span' },
    texts: (k) => [j({ ...k.withScore(5), evidence: 'It shipped on 24 March.' })],
  },
  {
    name: 'control: span with a category, its quote and a low aspect',
    allowed: ['fail'],
    only: { kind: 'span' },
    texts: (k) => [j({ ...k.withScore(2), evidence: 'It shipped on 24 March.' })],
  },
)

const toolCall = (input: unknown) => ({
  id: 'call_1',
  type: 'function',
  function: { name: 'verdict', arguments: j(input) },
})
function withReasoning(verdict: Record<string, unknown>, reasoning: string): Record<string, unknown> {
  return 'reasoning' in verdict
    ? { ...verdict, reasoning }
    : {
        ...verdict,
        errors: (verdict.errors as Array<Record<string, unknown>>).map((e) => ({ ...e, description: reasoning })),
      }
}

function withoutReasoning(verdict: Record<string, unknown>): Record<string, unknown> {
  if ('reasoning' in verdict) {
    const { reasoning: _r, ...rest } = verdict
    return rest
  }
  const { scores: _s, ...rest } = verdict // the monolithic reply has no reasoning: drop a required field instead
  return rest
}

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => server.resetHandlers())
afterAll(() => server.close())

test('the table has at least 25 adversarial replies besides the controls', () => {
  expect(ENTRIES.filter((e) => !e.name.startsWith('control:')).length).toBeGreaterThanOrEqual(25)
})

describe.each(callKinds().map((k) => [k.name, k] as const))('%s', (_kind, kind) => {
  test.each(providerShapes().map((s) => [s.name, s] as const))(
    '%s: every reply gets an allowed outcome; none passes unless it is a whole passing verdict',
    async (_shape, shape) => {
      const wrong: string[] = []
      for (const entry of ENTRIES) {
        if (entry.only?.provider && !shape.name.startsWith(entry.only.provider)) continue
        if (entry.only?.kind && !kind.name.startsWith(entry.only.kind)) continue
        script(
          shape.toReply({
            texts: entry.texts(kind),
            blocks: entry.blocks?.(kind),
            openai: entry.openai?.(kind),
            bedrock: entry.bedrock,
          }),
        )
        const before = received.openai + received.bedrock
        const outcome = await kind.run(shape.judge())
        const requests = received.openai + received.bedrock - before
        if (!entry.allowed.includes(outcome))
          wrong.push(`${entry.name}: ${outcome} (allowed ${entry.allowed.join(' | ')})`)
        // An invalid reply is asked once more, then given up: never more (the fallback server's 400 is one extra).
        if (outcome === 'unjudgeable' && requests > (shape.name.includes('fallback') ? 3 : 2))
          wrong.push(`${entry.name}: ${requests} requests`)
      }
      expect(wrong).toEqual([])
    },
  )
})
