// The reply-contract harness: every judge call kind (output metric, span diagnosis, agent pass,
// monolithic TRAIL predictor) against every provider shape (OpenAI json_schema, the json_object
// fallback, plain text from an OpenAI-compatible server, Bedrock forced tool use, Bedrock Converse
// text), through the real `openai` and Bedrock SDK clients with msw answering for the services.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { monolithicPredictor } from '../../src/bench/monolithic-predictor'
import { runAgentPass } from '../../src/diagnosis/agent-pass'
import { diagnose } from '../../src/diagnosis/diagnose'
import { compactSteps } from '../../src/diagnosis/steps'
import { AGENT_METRICS } from '../../src/diagnosis/types'
import { bedrockJudge } from '../../src/judges/bedrock'
import { openaiJudge } from '../../src/judges/openai'
import type { Judge } from '../../src/judges/types'
import { instructionFollowingMetric } from '../../src/metrics/instruction-following'
import { runMetric } from '../../src/metrics/run-metric'
import { handmadeTrace } from '../diagnosis/helpers'

export type Outcome = 'pass' | 'fail' | 'unjudgeable'

/**
 * What the scripted judge sends back: the text of each choice (OpenAI) or the content blocks (Bedrock). A tool
 * named `verdict` is renamed to the tool the request forced (any other name is sent as it is). Numbers in a
 * tool input written as `"<<num:TOKEN>>"` are sent as the bare token, so a body can hold a number as written
 * (`0.99999999999999999`) that no JavaScript value holds.
 */
export interface ScriptedReply {
  choices: string[]
  blocks: Array<{ text: string } | { toolUse: { toolUseId: string; name: string; input: unknown } }>
  /** OpenAI: fields added to the completion (e.g. a top-level `error`) and to every choice's message. */
  openai?: { completion?: Record<string, unknown>; message?: Record<string, unknown>; finishReason?: string | null }
  /** Bedrock: the stop reason (default tool_use with a tool call, else end_turn), extra response headers, usage. */
  bedrock?: { stopReason?: string; headers?: Record<string, string>; usage?: Record<string, unknown> }
}

let replies: ScriptedReply[] = [{ choices: [''], blocks: [] }]
let served = 0
/** Requests the services received (the re-ask included). */
export const received = { openai: 0, bedrock: 0 }

/**
 * Sets the reply every following request gets (a re-ask gets the same one); with a list, the n-th request
 * from now gets the n-th reply and every later one the last (self-consistency samples that disagree).
 */
export function script(next: ScriptedReply | ScriptedReply[]): void {
  replies = Array.isArray(next) ? next : [next]
  served = 0
}

const nextReply = (): ScriptedReply => replies[Math.min(served++, replies.length - 1)]

const completion = (choices: string[], extra: ScriptedReply['openai'] = {}) => ({
  id: 'chatcmpl-contract',
  object: 'chat.completion',
  created: 1_760_000_000,
  model: 'judge-model',
  choices: choices.map((content, index) => ({
    index,
    message: { role: 'assistant', content, refusal: null, ...extra.message },
    finish_reason: extra.finishReason === undefined ? 'stop' : extra.finishReason,
    logprobs: null,
  })),
  usage: { prompt_tokens: 900, completion_tokens: 60, total_tokens: 960 },
  ...extra.completion,
})

/** JSON text with every `"<<num:TOKEN>>"` string put back as the number token it stands for. */
export const withNumbersAsWritten = (value: unknown) => JSON.stringify(value).replace(/"<<num:([-+.\deE]+)>>"/g, '$1')

/** A JSON text parsed with each number kept as written, as a `"<<num:TOKEN>>"` string (see ScriptedReply). */
function parseKeepingNumbers(text: string): unknown {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') {
      let end = i + 1
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1
      out += text.slice(i, end + 1)
      i = end
      continue
    }
    const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i))
    if (number) {
      out += `"<<num:${number[0]}>>"`
      i += number[0].length - 1
    } else out += text[i]
  }
  return JSON.parse(out)
}

export const server = setupServer(
  http.post('https://judge.test/:flavor/v1/chat/completions', async ({ request, params }) => {
    received.openai++
    const body = (await request.json()) as { response_format?: { type?: string } }
    // The fallback server rejects json_schema as llama.cpp-style servers do; the judge then asks with json_object.
    if (params.flavor === 'fallback' && body.response_format?.type === 'json_schema') {
      return HttpResponse.json(
        {
          error: { message: "'response_format' of type 'json_schema' is not supported", type: 'invalid_request_error' },
        },
        { status: 400 },
      )
    }
    const reply = nextReply()
    return HttpResponse.json(completion(reply.choices, reply.openai))
  }),
  http.post('https://bedrock-runtime.:region.amazonaws.com/model/:modelId/converse', async ({ request }) => {
    received.bedrock++
    const reply = nextReply()
    const asked = (await request.json()) as { toolConfig?: { toolChoice?: { tool?: { name?: string } } } }
    const forced = asked.toolConfig?.toolChoice?.tool?.name ?? 'verdict'
    const content = reply.blocks.map((b) =>
      'toolUse' in b && b.toolUse.name === 'verdict' ? { toolUse: { ...b.toolUse, name: forced } } : b,
    )
    const body = withNumbersAsWritten({
      output: { message: { role: 'assistant', content } },
      stopReason: reply.bedrock?.stopReason ?? (reply.blocks.some((b) => 'toolUse' in b) ? 'tool_use' : 'end_turn'),
      usage: reply.bedrock?.usage ?? { inputTokens: 900, outputTokens: 60, totalTokens: 960 },
      metrics: { latencyMs: 100 },
    })
    return new HttpResponse(body, {
      headers: { 'content-type': 'application/json', ...reply.bedrock?.headers },
    })
  }),
)

const fast = { sleep: async () => {}, baseDelayMs: 1, maxDelayMs: 1 }

/** How a reply reaches the judge, and the judge that reads it. */
export interface ProviderShape {
  name: string
  /** The reply in this shape: `texts` are whole text replies, `tools` structured verdicts (when the entry has them). */
  judge(): Judge
  toReply(entry: {
    texts: string[]
    blocks?: ScriptedReply['blocks']
    openai?: ScriptedReply['openai']
    bedrock?: ScriptedReply['bedrock']
  }): ScriptedReply
}

/** A text reply as Bedrock forced tool use returns it: the JSON document as tool input, anything else as text. */
function asToolBlocks(text: string): ScriptedReply['blocks'] {
  const body = /^\s*```[A-Za-z]*\s*([\s\S]*?)\s*```\s*$/.exec(text)?.[1] ?? text
  try {
    return [{ toolUse: { toolUseId: 'tooluse_1', name: 'verdict', input: parseKeepingNumbers(body) } }]
  } catch {
    return [{ text }]
  }
}

export function providerShapes(): ProviderShape[] {
  const bedrockClient = () =>
    new BedrockRuntimeClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAFAKE', secretAccessKey: 'fake' },
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    })
  return [
    {
      name: 'openai json_schema',
      judge: () =>
        openaiJudge({
          model: 'gpt-4.1',
          client: new OpenAI({ apiKey: 'sk-test', baseURL: 'https://judge.test/openai/v1', maxRetries: 0 }),
          retry: fast,
        }),
      toReply: (e) => ({ choices: e.texts, blocks: [], openai: e.openai }),
    },
    {
      name: 'openai-compatible json_object fallback',
      judge: () => openaiJudge({ model: 'llava', baseURL: 'https://judge.test/fallback/v1', retry: fast }),
      toReply: (e) => ({ choices: e.texts, blocks: [], openai: e.openai }),
    },
    {
      name: 'openai-compatible plain text',
      judge: () => openaiJudge({ model: 'llama3.2', baseURL: 'https://judge.test/compat/v1', retry: fast }),
      toReply: (e) => ({ choices: e.texts, blocks: [], openai: e.openai }),
    },
    {
      name: 'bedrock forced tool',
      judge: () => bedrockJudge({ client: bedrockClient(), retry: fast }),
      toReply: (e) => ({ choices: [], blocks: e.blocks ?? e.texts.flatMap(asToolBlocks), bedrock: e.bedrock }),
    },
    {
      name: 'bedrock converse text',
      judge: () => bedrockJudge({ client: bedrockClient(), retry: fast }),
      toReply: (e) => ({ choices: [], blocks: e.texts.map((text) => ({ text })), bedrock: e.bedrock }),
    },
  ]
}

/** A judge call kind: its passing and failing verdicts, how to plant a score, and how to run it. */
export interface CallKind {
  name: string
  pass: Record<string, unknown>
  fail: Record<string, unknown>
  /** The failing verdict with its score field(s) set to `value`. */
  withScore(value: unknown): Record<string, unknown>
  /** The passing verdict's score (every score field holds it). */
  passScore: number
  /** The passing verdict with its score field(s) set to `value`. */
  passWith(value: unknown): Record<string, unknown>
  run(judge: Judge): Promise<Outcome>
}

const trace = () =>
  handmadeTrace([
    {
      id: 'agent',
      kind: 'agent',
      name: 'SupportAgent.run',
      input: { task: 'Tell the customer where order A-1042 is.' },
      output: 'It shipped on 24 March.',
    },
    {
      id: 'llm1',
      parent: 'agent',
      kind: 'llm',
      name: 'llm',
      input: 'Where is order A-1042?',
      output: 'It shipped on 24 March.',
    },
  ])

const aspect = (score: unknown) => ({ reason: 'checked', score })
const spanVerdict = (score: unknown, category: string) => ({
  reasoning: 'The span answers from the tool output.',
  instruction_following: aspect(score),
  reasoning_integrity: aspect(score),
  tool_completeness: aspect(score),
  error_category: category,
  evidence: '',
})
const agentVerdict = (score: unknown) => ({
  reasoning: 'The run reaches the goal.',
  plan_efficiency: aspect(score),
  tool_coverage: aspect(score),
  tool_abuse: aspect(score),
  completeness: aspect(score),
})
const scoreSet = (score: unknown) => ({
  reliability_score: score,
  reliability_reasoning: 'r',
  security_score: score,
  security_reasoning: 's',
  instruction_adherence_score: score,
  instruction_adherence_reasoning: 'i',
  plan_opt_score: score,
  plan_opt_reasoning: 'p',
  overall: score,
})

export function callKinds(): CallKind[] {
  const dir = mkdtempSync(join(tmpdir(), 'reply-contract-'))
  const file = join(dir, 'trace.json')
  writeFileSync(file, JSON.stringify({ trace_id: 'contract', spans: [] }))
  return [
    {
      name: 'output metric (toFollowInstructions)',
      pass: { reasoning: 'Only the week label is given.', score: 1 },
      fail: { reasoning: 'It adds a sentence around the label.', score: 0 },
      withScore: (value) => ({ reasoning: 'It adds a sentence around the label.', score: value }),
      passScore: 1,
      passWith: (value) => ({ reasoning: 'Only the week label is given.', score: value }),
      run: async (judge) =>
        (
          await runMetric(
            instructionFollowingMetric,
            { output: 'W7', instruction: 'Answer with the week label only.' },
            { judge },
          )
        ).outcome,
    },
    {
      name: 'span diagnosis (diagnose)',
      pass: spanVerdict(5, 'none'),
      fail: spanVerdict(1, 'Formatting Errors'),
      withScore: (value) => spanVerdict(value, 'Formatting Errors'),
      passScore: 5,
      passWith: (value) => spanVerdict(value, 'none'),
      run: async (judge) => (await diagnose(trace(), { judge, detectors: false, agent: false })).verdict.outcome,
    },
    {
      name: 'agent-level pass',
      pass: agentVerdict(5),
      fail: agentVerdict(1),
      withScore: agentVerdict,
      passScore: 5,
      passWith: agentVerdict,
      run: async (judge) => {
        const t = trace()
        const { verdicts } = await runAgentPass(t, compactSteps(t), {
          judge,
          metrics: [...AGENT_METRICS],
          budgetTokens: 16_000,
          threshold: 0.5,
        })
        if (verdicts.some((v) => v.outcome === 'unjudgeable')) return 'unjudgeable'
        return verdicts.every((v) => v.outcome === 'pass') ? 'pass' : 'fail'
      },
    },
    {
      name: 'monolithic TRAIL predictor',
      pass: { errors: [], scores: [scoreSet(5)] },
      fail: {
        errors: [
          {
            category: 'Formatting Errors',
            location: 'llm1',
            evidence: '',
            description: 'no code block',
            impact: 'HIGH',
          },
        ],
        scores: [scoreSet(1)],
      },
      passScore: 5,
      passWith: (value) => ({ errors: [], scores: [scoreSet(value)] }),
      withScore: (value) => ({
        errors: [
          {
            category: 'Formatting Errors',
            location: 'llm1',
            evidence: '',
            description: 'no code block',
            impact: 'HIGH',
          },
        ],
        scores: [scoreSet(value)],
      }),
      run: async (judge) => {
        try {
          const prediction = await monolithicPredictor(judge)(trace(), { split: 'GAIA', traceId: 'contract', file })
          // "Pass" here is a prediction of no error at all: what a failing verdict must never turn into.
          return prediction.errors.length === 0 ? 'pass' : 'fail'
        } catch (err) {
          if (/no usable prediction/.test((err as Error).message)) return 'unjudgeable'
          throw err
        }
      },
    },
  ]
}
