// What the behaviour detectors need to know about one agent run: its planning calls, its steps, the tools
// it may call and the ones each step did call. Reads only parsed spans (never the raw `input.value`).
import type { Message, Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'

/** Tool names that end a run with an answer instead of gathering anything (smolagents, most ReAct loops). */
export const FINAL_ANSWER_TOOLS: ReadonlySet<string> = new Set(['final_answer', 'final_result', 'submit_final_answer'])

/** One agent span and what hangs below it, in start order. */
export interface AgentRun {
  agent: Span
  /** LLM calls directly under the agent (planning: facts survey, plan, their updates). */
  planning: Span[]
  /** Step spans (CHAIN) directly under the agent. */
  steps: Span[]
  /** Tools the agent may call, without the final-answer tool. */
  tools: string[]
  /** Sub-agents it may delegate to ("team members"), by the name its code calls them with. */
  managedAgents: string[]
}

/**
 * Every agent span of the trace with its planning calls, steps and callable names. Tool names come from
 * the agent's own attributes (`smolagents.tools_names`, `smolagents.managed_agents.N.name`); a run whose
 * agent records none has `tools` / `managedAgents` empty.
 *
 * @example
 * for (const run of agentRuns(trace)) console.log(run.agent.name, run.steps.length, run.managedAgents)
 */
export function agentRuns(trace: Trace): readonly AgentRun[] {
  let runs = runsOf.get(trace)
  if (!runs) runsOf.set(trace, (runs = collectRuns(trace)))
  return runs
}

// Several detectors walk the same runs and outputs; a trace and its spans never change once loaded.
const runsOf = new WeakMap<Trace, readonly AgentRun[]>()
const textOf = new WeakMap<Span, string>()
const splitOf = new WeakMap<Span, ThoughtAndCode>()
const callRegexOf = new Map<string, RegExp>()

function collectRuns(trace: Trace): AgentRun[] {
  const runs: AgentRun[] = []
  for (const agent of trace.spans) {
    if (agent.kind !== 'agent') continue
    const kids = trace.children(agent.id)
    runs.push({
      agent,
      planning: kids.filter((s) => s.kind === 'llm'),
      steps: kids.filter((s) => s.kind === 'chain'),
      tools: stringList(agent.attributes['smolagents.tools_names']).filter((n) => !FINAL_ANSWER_TOOLS.has(n)),
      managedAgents: managedAgentNames(agent),
    })
  }
  return runs
}

function stringList(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.filter((x): x is string => typeof x === 'string')
  if (typeof raw !== 'string' || !raw.startsWith('[')) return []
  try {
    const parsed: unknown = JSON.parse(raw)
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : []
  } catch {
    return []
  }
}

function managedAgentNames(agent: Span): string[] {
  const names: string[] = []
  for (let i = 0; ; i++) {
    const name = agent.attributes[`smolagents.managed_agents.${i}.name`]
    if (typeof name !== 'string') return names
    names.push(name)
  }
}

/** What one step did: its model call (the last LLM child) and the tools / sub-agents run under it. */
export interface StepCalls {
  llm: Span | undefined
  /** Tool spans and sub-agent spans under the step, in start order. */
  calls: Span[]
}

/**
 * The model call and the tool / sub-agent calls of one step.
 *
 * @example
 * stepCalls(trace, step).calls.map((s) => s.toolName ?? s.name) // ['search_agent run', 'final_answer']
 */
export function stepCalls(trace: Trace, step: Span): StepCalls {
  let llm: Span | undefined
  const calls: Span[] = []
  for (const s of trace.children(step.id)) {
    if (s.kind === 'llm') llm = s
    else if (s.kind === 'tool' || s.kind === 'agent') calls.push(s)
  }
  return { llm, calls }
}

/** True for a tool span of a final-answer tool. */
export function isFinalAnswer(span: Span): boolean {
  return span.kind === 'tool' && FINAL_ANSWER_TOOLS.has(span.toolName ?? '')
}

/**
 * The text an LLM call produced: its output messages' content joined (tool calls are not text).
 *
 * @example
 * outputText(llm).startsWith('Thought:') // true for a smolagents CodeAgent step
 */
export function outputText(llm: Span): string {
  let text = textOf.get(llm)
  if (text === undefined) textOf.set(llm, (text = joinOutput(llm.output)))
  return text
}

function joinOutput(out: unknown): string {
  if (typeof out === 'string') return out
  if (!Array.isArray(out)) return ''
  return (out as Message[]).map((m) => (typeof m?.content === 'string' ? m.content : '')).join('\n')
}

/** The last message of an LLM call's input: what the model was answering (a tool result, an instruction). */
export function lastInputMessage(llm: Span): Message | undefined {
  const input = llm.input
  if (!Array.isArray(input) || input.length === 0) return undefined
  const last = input[input.length - 1] as Message
  return typeof last?.content === 'string' ? last : undefined
}

/** A model output split at its first fenced code block (see {@link splitThoughtAndCode}). */
export interface ThoughtAndCode {
  thought: string
  code: string | undefined
  codeAt: number
}

/**
 * {@link splitThoughtAndCode} of an LLM call's {@link outputText}, computed once per span.
 *
 * @example
 * const { thought, code } = thoughtAndCode(llm)
 */
export function thoughtAndCode(llm: Span): ThoughtAndCode {
  let split = splitOf.get(llm)
  if (!split) splitOf.set(llm, (split = splitThoughtAndCode(outputText(llm))))
  return split
}

// A fenced code block, as CodeAgent prompts ask for it ("Code:\n```py … ```").
const CODE_BLOCK = /```(?:py|python)?[ \t]*\n([\s\S]*?)(?:\n```|$)/

/**
 * The model's reasoning and its code, split at the first fenced code block; `code` is undefined when the
 * output has none.
 *
 * @example
 * splitThoughtAndCode('Thought: ask the team\nCode:\n```py\nprint(1)\n```') // { thought: 'Thought: ask the team\nCode:', code: 'print(1)', codeAt: 33 }
 */
export function splitThoughtAndCode(text: string): ThoughtAndCode {
  const m = CODE_BLOCK.exec(text)
  if (!m) return { thought: text, code: undefined, codeAt: -1 }
  return { thought: text.slice(0, m.index), code: m[1], codeAt: m.index + m[0].indexOf(m[1]) }
}

// Python string literals (triple-quoted first) and comments: text in them is not code that runs.
const PY_STRINGS = /"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*/g

/**
 * The code with string literals emptied and comments removed, so a name inside a task string or a
 * comment does not count as a call.
 *
 * @example
 * stripPythonStrings('print("ask search_agent(x)")  # search_agent(') // 'print("")  '
 */
export function stripPythonStrings(code: string): string {
  return code.replace(PY_STRINGS, (m) => (m.startsWith('#') ? '' : m.startsWith('"""') || m.startsWith("'''") ? m.slice(0, 3).repeat(2) : m[0].repeat(2)))
}

/** True if `code` calls `name(…)` outside strings and comments (as a function, not an attribute or a longer name). */
export function codeCalls(code: string, name: string): boolean {
  if (!code.includes(name)) return false
  let call = callRegexOf.get(name)
  if (!call) callRegexOf.set(name, (call = new RegExp(String.raw`(?<![\w.])${escapeRegExp(name)}\s*\(`)))
  return call.test(stripPythonStrings(code))
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
