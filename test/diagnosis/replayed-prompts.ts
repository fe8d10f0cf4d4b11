// The scenarios whose judge prompts test/diagnosis/__verdicts__/replayed-prompts.test.ts.json holds: recorded
// once with the fake judge (before the tokenizer was made lazy), replayed by replayed-prompts.test.ts. A small
// trace (every prompt far under budget) and TRAIL traces at budgets that force prompts to be fitted with the
// real tokenizer, for an OpenAI judge (o200k) and a Claude one (o200k × margin).
import { join } from 'node:path'
import { openaiJudge } from '../../src/judges/openai'
import type { Judge } from '../../src/judges/types'
import type { Trace } from '../../src/trace/trace'
import { loadTrace } from '../../src/trace/load'
import { handmadeTrace } from './helpers'

const TRAIL = join(import.meta.dirname, '../fixtures/trail')

export interface PromptScenario {
  name: string
  trace: () => Promise<Trace>
  model: string
  budgetTokens?: number
}

/** A user's 3-span run: a chat, a failing tool call, a closing chat. */
export function smallTrace(): Trace {
  return handmadeTrace([
    { id: 'root', kind: 'agent', name: 'support', input: 'Where is order A-1042?', output: 'It shipped.' },
    { id: 'chat', parent: 'root', kind: 'llm', input: 'Where is order A-1042?', output: 'I will look it up.' },
    {
      id: 'lookup',
      parent: 'root',
      kind: 'tool',
      toolName: 'lookup_order',
      toolArgs: { id: 'A-1042' },
      output: '{"status":"shipped"}',
    },
  ])
}

export const SCENARIOS: PromptScenario[] = [
  { name: 'small trace, default budget', trace: async () => smallTrace(), model: 'fake-judge' },
  {
    name: 'TRAIL GAIA trace, 16,000-token budget',
    trace: () => loadTrace(join(TRAIL, '0ebe673d64647ec44c370638b82d3c78.json')),
    model: 'fake-judge',
    budgetTokens: 16_000,
  },
  {
    name: 'TRAIL GAIA trace, 4,000-token budget (prompts fitted)',
    trace: () => loadTrace(join(TRAIL, '0ebe673d64647ec44c370638b82d3c78.json')),
    model: 'fake-judge',
    budgetTokens: 4_000,
  },
  {
    name: 'TRAIL trace, Claude judge (o200k × margin), 4,000-token budget',
    trace: () => loadTrace(join(TRAIL, 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json')),
    model: 'claude-fake-judge',
    budgetTokens: 4_000,
  },
]

/** The judge the scenarios were recorded with, pointed at `baseURL` (any closed port to replay). */
export function scenarioJudge(model: string, baseURL: string): Judge {
  return openaiJudge({ model, baseURL, concurrency: 8, maxWaitMs: 300, retry: { baseDelayMs: 1, maxDelayMs: 5 } })
}
