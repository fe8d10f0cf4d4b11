// The cross-framework failure set: small agent tasks, each run once per SDK with one planted failure (or none),
// and the gold (span, TRAIL category) pairs that failure leaves. The model is scripted (model-server.ts); the
// tools are local functions. Gold spans are named by role ("the 2nd LLM call", "the 1st call of tool X") and
// resolved on the parsed trace, so the same scenario gives the same gold under every SDK.
import type { ErrorCategory } from '../../src/taxonomy'

/** One tool of a task: its parameter and what it returns for an argument. */
export interface ToolSpec {
  name: string
  description: string
  param: string
  run: (arg: string) => string
}

/** A small task with one lookup tool it needs, and one decoy tool it does not. */
export interface Task {
  id: string
  system: string
  /** Instances of the task: the question and its argument. */
  instances: Array<{ question: string; arg: string; wrongArg: string; answer: string; misread: string }>
  lookup: ToolSpec
  decoy: ToolSpec & { arg: string }
  /** A second, different lookup argument for each extra step of the budget-exceeding run. */
  extraArgs: string[]
}

const JSON_RULE = 'Reply with one JSON object {"answer": "<short answer>"} and nothing else.'

export const TASKS: Task[] = [
  {
    id: 'weather',
    system: `You are a weather assistant. Use get_weather for any weather question. ${JSON_RULE}`,
    instances: [
      {
        question: 'What is the temperature in Paris right now?',
        arg: 'Paris',
        wrongArg: 'London',
        answer: '12 °C',
        misread: '21 °C',
      },
      {
        question: 'How warm is it in Oslo today?',
        arg: 'Oslo',
        wrongArg: 'Stockholm',
        answer: '-3 °C',
        misread: '3 °C',
      },
      {
        question: 'Is it hot in Cairo at the moment? Give the temperature.',
        arg: 'Cairo',
        wrongArg: 'Dubai',
        answer: '31 °C',
        misread: '13 °C',
      },
      {
        question: 'Tell me the current temperature in Lima.',
        arg: 'Lima',
        wrongArg: 'Quito',
        answer: '18 °C',
        misread: '81 °C',
      },
      {
        question: 'What is the temperature in Osaka?',
        arg: 'Osaka',
        wrongArg: 'Tokyo',
        answer: '9 °C',
        misread: '19 °C',
      },
    ],
    lookup: {
      name: 'get_weather',
      description: 'Current weather for a city',
      param: 'city',
      run: (city) => JSON.stringify({ city, temperature_c: TEMPS[city] ?? 15, conditions: 'cloudy' }),
    },
    decoy: {
      name: 'convert_currency',
      description: 'Convert an amount between currencies',
      param: 'query',
      arg: '100 EUR to USD',
      run: () => JSON.stringify({ result: 108.2, currency: 'USD' }),
    },
    extraArgs: ['Lyon', 'Nice', 'Lille'],
  },
  {
    id: 'orders',
    system: `You are a support agent for a shop. Look orders up with lookup_order before answering. ${JSON_RULE}`,
    instances: [
      {
        question: 'Where is my order A-1001?',
        arg: 'A-1001',
        wrongArg: 'A-1010',
        answer: 'shipped',
        misread: 'delivered',
      },
      {
        question: 'Has order B-2002 left the warehouse?',
        arg: 'B-2002',
        wrongArg: 'B-2020',
        answer: 'not yet: packing',
        misread: 'yes, shipped',
      },
      {
        question: 'What is the status of order C-3003?',
        arg: 'C-3003',
        wrongArg: 'C-3300',
        answer: 'delivered',
        misread: 'cancelled',
      },
      {
        question: 'Can you check order D-4004 for me?',
        arg: 'D-4004',
        wrongArg: 'D-4040',
        answer: 'cancelled',
        misread: 'shipped',
      },
      {
        question: 'Did order E-5005 arrive?',
        arg: 'E-5005',
        wrongArg: 'E-5050',
        answer: 'shipped',
        misread: 'delivered',
      },
    ],
    lookup: {
      name: 'lookup_order',
      description: 'Status of an order by its id',
      param: 'order_id',
      run: (id) => JSON.stringify({ order_id: id, status: ORDERS[id] ?? 'unknown' }),
    },
    decoy: {
      name: 'list_products',
      description: 'List products in a category',
      param: 'category',
      arg: 'shoes',
      run: () => JSON.stringify({ products: ['runner', 'boot'] }),
    },
    extraArgs: ['Z-9001', 'Z-9002', 'Z-9003'],
  },
  {
    id: 'docs',
    system: `You answer questions about the Acme API from its documentation; search it with search_docs. ${JSON_RULE}`,
    instances: [
      {
        question: 'What is the default page size of the list endpoint?',
        arg: 'list endpoint page size',
        wrongArg: 'webhook retries',
        answer: '50',
        misread: '500',
      },
      {
        question: 'How long is an access token valid?',
        arg: 'access token lifetime',
        wrongArg: 'refresh token scope',
        answer: '1 hour',
        misread: '1 day',
      },
      {
        question: 'Which HTTP method deletes a widget?',
        arg: 'delete widget method',
        wrongArg: 'create widget',
        answer: 'DELETE',
        misread: 'POST',
      },
      {
        question: 'What is the request rate limit per minute?',
        arg: 'rate limit per minute',
        wrongArg: 'upload size limit',
        answer: '600',
        misread: '60',
      },
      {
        question: 'Which header carries the idempotency key?',
        arg: 'idempotency key header',
        wrongArg: 'auth header',
        answer: 'Idempotency-Key',
        misread: 'X-Request-Id',
      },
    ],
    lookup: {
      name: 'search_docs',
      description: 'Search the API documentation',
      param: 'query',
      run: (q) => JSON.stringify({ query: q, snippet: DOCS[q] ?? 'no match' }),
    },
    decoy: {
      name: 'get_weather',
      description: 'Current weather for a city',
      param: 'city',
      arg: 'Berlin',
      run: () => JSON.stringify({ city: 'Berlin', temperature_c: 7 }),
    },
    extraArgs: ['pagination cursor', 'sorting', 'filters'],
  },
]

const TEMPS: Record<string, number> = { Paris: 12, Oslo: -3, Cairo: 31, Lima: 18, Osaka: 9 }
const ORDERS: Record<string, string> = {
  'A-1001': 'shipped',
  'B-2002': 'packing',
  'C-3003': 'delivered',
  'D-4004': 'cancelled',
  'E-5005': 'shipped',
}
const DOCS: Record<string, string> = {
  'list endpoint page size': 'GET /widgets returns 50 items per page by default.',
  'access token lifetime': 'Access tokens expire after 1 hour.',
  'delete widget method': 'Send DELETE /widgets/{id} to delete a widget.',
  'rate limit per minute': 'Each key may make 600 requests per minute.',
  'idempotency key header': 'Pass the Idempotency-Key header on POST requests.',
}

/** The planted failures (and `clean`). */
export const FAILURES = [
  'clean',
  'tool-error-ignored',
  'wrong-tool',
  'wrong-arguments',
  'repeated-call-loop',
  'answer-before-lookup',
  'tool-result-misread',
  'invalid-answer-format',
  'exceeded-budget',
  'auth-error',
  'rate-limit',
] as const
export type Failure = (typeof FAILURES)[number]

/** One scripted model turn: tool calls, or a final text. `status` makes the model server fail the call instead. */
export interface Turn {
  calls?: Array<{ tool: string; arg: string }>
  text?: string
  status?: { code: number; message: string }
}

/** What a tool does in one run: its normal output, or an error it raises. */
export type ToolBehaviour = { raise?: string }

/** A span named by role, resolved on the parsed trace. */
export type GoldRef = { kind: 'llm'; nth: number } | { kind: 'tool'; name: string; nth: number }

export interface Scenario {
  id: string
  task: Task
  instance: Task['instances'][number]
  failure: Failure
  turns: Turn[]
  /** Per tool name: raise an error instead of answering. */
  tools: Record<string, ToolBehaviour>
  gold: Array<{ span: GoldRef; category: ErrorCategory }>
  /** The budget the run is checked against (the budget failure exceeds it; every run gets it). */
  budget: { llmCalls: number }
}

const answer = (text: string) => JSON.stringify({ answer: text })
const BUDGET = { llmCalls: 4 }

/**
 * The scenarios: every task instance once clean, and each failure once per task (on instance 1..; the
 * instances rotate so no failure always uses the same question).
 */
export function scenarios(): Scenario[] {
  const out: Scenario[] = []
  for (const task of TASKS) {
    task.instances.forEach((instance, i) => {
      out.push(build(task, instance, 'clean', `${task.id}-clean-${i + 1}`))
    })
    FAILURES.filter((f) => f !== 'clean').forEach((failure, k) => {
      const instance = task.instances[k % task.instances.length]
      out.push(build(task, instance, failure, `${task.id}-${failure}`))
    })
  }
  return out
}

function build(task: Task, instance: Task['instances'][number], failure: Failure, id: string): Scenario {
  const L = task.lookup.name
  const lookup = (arg = instance.arg): Turn => ({ calls: [{ tool: L, arg }] })
  const base = { id, task, instance, failure, tools: {}, budget: BUDGET }
  const llm = (nth: number): GoldRef => ({ kind: 'llm', nth })
  switch (failure) {
    case 'clean':
      return { ...base, turns: [lookup(), { text: answer(instance.answer) }], gold: [] }
    case 'tool-error-ignored':
      return {
        ...base,
        tools: { [L]: { raise: '503 Service Unavailable: the upstream service did not answer' } },
        turns: [lookup(), { text: answer(instance.answer) }],
        gold: [
          { span: { kind: 'tool', name: L, nth: 1 }, category: 'Service Errors' },
          { span: llm(2), category: 'Tool Output Misinterpretation' },
        ],
      }
    case 'wrong-tool':
      return {
        ...base,
        turns: [{ calls: [{ tool: task.decoy.name, arg: task.decoy.arg }] }, { text: answer(instance.answer) }],
        gold: [{ span: llm(1), category: 'Tool Selection Errors' }],
      }
    case 'wrong-arguments':
      return {
        ...base,
        turns: [lookup(instance.wrongArg), { text: answer(instance.answer) }],
        gold: [{ span: llm(1), category: 'Tool-related' }],
      }
    case 'repeated-call-loop':
      return {
        ...base,
        turns: [lookup(), lookup(), lookup(), { text: answer(instance.answer) }],
        // TRAIL's convention (and the taxonomy's hint): named on the last needless repeat, the third call.
        gold: [{ span: { kind: 'tool', name: L, nth: 3 }, category: 'Resource Abuse' }],
      }
    case 'answer-before-lookup':
      return {
        ...base,
        turns: [{ text: answer(instance.answer) }],
        gold: [{ span: llm(1), category: 'Goal Deviation' }],
      }
    case 'tool-result-misread':
      return {
        ...base,
        turns: [lookup(), { text: answer(instance.misread) }],
        gold: [{ span: llm(2), category: 'Tool Output Misinterpretation' }],
      }
    case 'invalid-answer-format':
      return {
        ...base,
        turns: [lookup(), { text: `Sure! The answer is ${instance.answer}. Let me know if you need anything else.` }],
        gold: [{ span: llm(2), category: 'Formatting Errors' }],
      }
    case 'exceeded-budget':
      return {
        ...base,
        turns: [lookup(), ...task.extraArgs.map((a) => lookup(a)), { text: answer(instance.answer) }],
        // The budget allows 4 LLM calls; the 5th goes over.
        gold: [{ span: llm(BUDGET.llmCalls + 1), category: 'Resource Exhaustion' }],
      }
    case 'auth-error':
      return {
        ...base,
        tools: { [L]: { raise: '401 Unauthorized: the API token was rejected' } },
        turns: [lookup(), { text: answer('I could not look this up: access was denied.') }],
        gold: [{ span: { kind: 'tool', name: L, nth: 1 }, category: 'Authentication Errors' }],
      }
    case 'rate-limit':
      return {
        ...base,
        turns: [
          lookup(),
          { status: { code: 429, message: 'Rate limit reached for requests. Please retry after 20s.' } },
        ],
        gold: [{ span: llm(2), category: 'Rate Limiting' }],
      }
  }
}
