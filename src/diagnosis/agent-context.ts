// User messages of the agent-level pass: a header (goal, plans, tools, deterministic facts, final
// answer) and the step list, split into parts that each keep the request within the per-call budget.
import type { z } from 'zod'
import { section, sections } from '../metrics/prompts/shared'
import type { Trace } from '../trace/trace'
import { canonicalView } from './canonical'
import { escapeFenced } from '../metrics/prompts/fence'
import { fencedTokens, fitFenced } from './fit-fenced'
import { finalAnswer, runTask, stepLine, type CompactStep } from './steps'
import { describeToolAbuse, type ToolAbuseFacts } from './tool-abuse'
import { CHARS_PER_TOKEN, estimateTokens, requestTokens } from './tokens'
import { allocate, headTail } from './truncate'

/** What the agent prompts are built from. */
export interface AgentPromptOptions {
  system: string
  schema: z.ZodType
  budgetTokens: number
  /** What the run should achieve; default the root agent's task. */
  goal?: string
}

/** One part's user text and its estimated request size. */
export interface AgentPrompt {
  text: string
  tokens: number
}

/** Share of the room the header may take; the rest is for steps, so long runs need few parts. */
const HEADER_SHARE = 0.45
const SAFETY_TOKENS = 64

/**
 * The agent-level prompts for a run: one when the step list fits, else one per part, each holding the
 * whole header and a consecutive slice of the steps. Every prompt stays within `budgetTokens`.
 *
 * @example
 * agentPrompts(trace, steps, toolAbuseFacts(steps), { system: SYSTEM, schema: AgentJudgementSchema, budgetTokens: 16_000 }).length // 1
 */
export function agentPrompts(
  trace: Trace,
  steps: readonly CompactStep[],
  facts: ToolAbuseFacts,
  options: AgentPromptOptions,
): AgentPrompt[] {
  const header = headerTexts(trace, steps, facts, options.goal)
  const frame =
    estimateTokens(
      assemble(
        header.map(() => '-'),
        '-',
      ),
    ) +
    requestTokens(options.system, '', options.schema) +
    SAFETY_TOKENS
  const available = options.budgetTokens - frame
  if (available < 400)
    throw new RangeError(
      `budgetTokens ${options.budgetTokens} leaves no room for the agent-level prompt; raise the budget`,
    )
  const grants = allocate(
    Math.floor(available * HEADER_SHARE),
    header.map((h) => ({ wants: fencedTokens(h.text), weight: h.weight })),
  )
  const headerParts = header.map((h, i) => fitFenced(grants[i], (n) => headTail(h.text, n)))
  const lines = steps.map(stepLine)
  let room = available - headerParts.reduce((n, h) => n + fencedTokens(h), 0)
  for (let attempt = 0; attempt < 8; attempt++) {
    const chunks = pack(lines, room)
    const prompts = chunks.map((chunk, k) => {
      const label =
        chunks.length > 1
          ? `part ${k + 1} of ${chunks.length} (steps ${chunk.from + 1}–${chunk.from + chunk.lines.length} of ${lines.length})\n`
          : ''
      const text = assemble(headerParts, `${label}${chunk.lines.join('\n') || '(no steps recorded)'}`)
      return { text, tokens: requestTokens(options.system, text, options.schema) }
    })
    const over = Math.max(...prompts.map((p) => p.tokens - options.budgetTokens))
    if (over <= 0) return prompts
    room -= over + 16
  }
  throw new RangeError('agent-level prompt could not be fitted to the budget; raise budgetTokens')
}

const HEADER_TAGS = ['goal', 'plans', 'tools', 'tool_abuse_facts', 'final_answer'] as const

function assemble(header: string[], steps: string): string {
  return sections(...HEADER_TAGS.map((tag, i) => section(tag, header[i] || '-')), section('steps', steps))
}

function headerTexts(
  trace: Trace,
  steps: readonly CompactStep[],
  facts: ToolAbuseFacts,
  goal: string | undefined,
): Array<{ text: string; weight: number }> {
  const task = runTask(trace)
  const goalText = goal ? (task ? `${goal}\n\n(the agent's task was: ${task})` : goal) : task
  const plans = steps
    .filter((s) => s.kind === 'plan')
    .map((s) => `[${s.agent || 'agent'}] ${s.plan ?? s.text}`)
    .join('\n\n')
  return [
    { text: goalText, weight: 2 },
    { text: plans, weight: 2 },
    { text: toolsText(trace, steps), weight: 1 },
    { text: describeToolAbuse(facts), weight: 0.5 },
    { text: finalAnswer(trace, steps) || '(no final answer recorded)', weight: 1 },
  ]
}

/** Tools the agents were given (smolagents attributes, LLM tool schemas) and how often each was used. */
function toolsText(trace: Trace, steps: readonly CompactStep[]): string {
  const available = new Set<string>()
  for (const span of canonicalView(trace).spans) {
    for (const [key, value] of Object.entries(span.attributes)) {
      if (key.endsWith('tools_names') && typeof value === 'string') {
        try {
          for (const name of JSON.parse(value) as unknown[]) if (typeof name === 'string') available.add(name)
        } catch {
          // Not JSON: the attribute is informational only.
        }
      } else if (/managed_agents\.\d+\.name$/.test(key) && typeof value === 'string') available.add(value)
      else if (/^llm\.tools\.\d+\.tool\.json_schema$/.test(key) && typeof value === 'string') {
        const name = /"name"\s*:\s*"([^"]+)"/.exec(value)?.[1]
        if (name) available.add(name)
      }
    }
  }
  const used = new Map<string, { n: number; failed: number }>()
  for (const s of steps) {
    if (!s.tool || s.kind === 'plan') continue
    const u = used.get(s.tool) ?? { n: 0, failed: 0 }
    u.n++
    if (s.failed) u.failed++
    used.set(s.tool, u)
  }
  const usedText = [...used].map(([t, u]) => `${t} ×${u.n}${u.failed ? ` (${u.failed} failed)` : ''}`).join(', ')
  return `available: ${[...available].join(', ') || 'not recorded'}\nused: ${usedText || 'none'}`
}

/** Consecutive lines packed into chunks of at most `room` tokens; a line too long alone is cut. */
function pack(lines: readonly string[], room: number): Array<{ from: number; lines: string[] }> {
  const maxChars = Math.max(CHARS_PER_TOKEN * 50, room * CHARS_PER_TOKEN - 120)
  const chunks: Array<{ from: number; lines: string[] }> = []
  let current: string[] = []
  let size = 0
  let from = 0
  lines.forEach((raw, i) => {
    // Sizes are those of the escaped lines: the steps block escapes them (see fence.ts).
    const line =
      escapeFenced(raw).length + 1 > maxChars
        ? fitFenced(Math.floor((maxChars - 1) / CHARS_PER_TOKEN), (n) => headTail(raw, n))
        : raw
    const chars = escapeFenced(line).length
    if (size + chars + 1 > maxChars && current.length > 0) {
      chunks.push({ from, lines: current })
      current = []
      size = 0
      from = i
    }
    current.push(line)
    size += chars + 1
  })
  chunks.push({ from, lines: current })
  return chunks
}
