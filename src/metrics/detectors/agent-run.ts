// What the behaviour detectors need to know about one agent run: its planning calls, its steps, the tools
// it may call and the ones each step did call. Reads only parsed spans (never the raw `input.value`).
import type { Message, Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'
import { forEachSpan, numberedKey } from './scan'

/** Tool names that end a run with an answer instead of gathering anything (smolagents, most ReAct loops). */
// `FinalAnswerTool` is smolagents' span name, for spans that record no `tool.name`.
export const FINAL_ANSWER_TOOLS: ReadonlySet<string> = new Set([
  'final_answer',
  'final_result',
  'submit_final_answer',
  'FinalAnswerTool',
])

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

/** A step with its model call and calls (see {@link stepCalls}), and that call's output read at most once. */
export class StepView implements StepCalls {
  readonly llm: Span | undefined
  readonly calls: Span[]
  private outText: string | undefined
  private thoughtCode: ThoughtAndCode | undefined

  constructor(
    readonly step: Span,
    calls: StepCalls,
  ) {
    this.llm = calls.llm
    this.calls = calls.calls
  }

  /** {@link outputText} of the step's model call ('' without one). */
  get text(): string {
    return (this.outText ??= this.llm ? outputText(this.llm) : '')
  }

  /** {@link splitThoughtAndCode} of {@link text}. */
  get split(): ThoughtAndCode {
    return (this.thoughtCode ??= splitThoughtAndCode(this.text))
  }
}

/** An agent run and a view of each of its steps, shared by the detectors that read the same steps. */
export interface RunView {
  run: AgentRun
  steps: StepView[]
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
  return collectRuns(trace)
}

/**
 * {@link agentRuns} with a {@link StepView} per step. `detect()` computes them once and hands them to
 * every detector that reads steps (no cache keyed by trace: a WeakMap entry per trace costs the garbage
 * collector more than recomputing would).
 *
 * @example
 * for (const { run, steps } of runViews(trace)) console.log(run.agent.name, steps.map((s) => s.calls.length))
 */
export function runViews(trace: Trace): readonly RunView[] {
  return collectRuns(trace).map((run) => ({
    run,
    steps: run.steps.map((step) => new StepView(step, stepCalls(trace, step))),
  }))
}

function collectRuns(trace: Trace): AgentRun[] {
  const runs: AgentRun[] = []
  forEachSpan(trace.spans, (agent) => {
    if (agent.kind !== 'agent') return
    const planning: Span[] = []
    const steps: Span[] = []
    forEachSpan(trace.children(agent.id), (kid) => {
      if (kid.kind === 'llm') planning.push(kid)
      else if (kid.kind === 'chain') steps.push(kid)
    })
    runs.push({
      agent,
      planning,
      steps,
      tools: stringList(agent.attributes['smolagents.tools_names']).filter((n) => !FINAL_ANSWER_TOOLS.has(n)),
      managedAgents: managedAgentNames(agent),
    })
  })
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

const managedNameKey = numberedKey('smolagents.managed_agents.', '.name', 8)

function managedAgentNames(agent: Span): string[] {
  const names: string[] = []
  for (let i = 0; ; i++) {
    const name = agent.attributes[managedNameKey(i)]
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
  forEachSpan(trace.children(step.id), (s) => {
    if (s.kind === 'llm') llm = s
    else if (s.kind === 'tool' || s.kind === 'agent') calls.push(s)
  })
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
  const out = llm.output
  if (typeof out === 'string') return out
  if (!Array.isArray(out)) return ''
  // Nearly every model call returns one message: no array to build and join then.
  if (out.length === 1) return contentOf(out[0])
  return (out as unknown[]).map(contentOf).join('\n')
}

function contentOf(m: unknown): string {
  const content = (m as Message | undefined)?.content
  return typeof content === 'string' ? content : ''
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
 * {@link splitThoughtAndCode} of an LLM call's {@link outputText} (detectors share it per step through
 * {@link StepView}).
 *
 * @example
 * const { thought, code } = thoughtAndCode(llm)
 */
export function thoughtAndCode(llm: Span): ThoughtAndCode {
  return splitThoughtAndCode(outputText(llm))
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

export { codeCalls, escapeRegExp, hasWord, stripPythonStrings } from './python-code'
