// The run as a compact step list: plans stated, tool calls with argument digests, code actions,
// delegations, errors and the final answer — one short line each, for the previous-steps context of
// span prompts and for the agent-level pass.
import { FINAL_ANSWER_TOOLS } from '../metrics/detectors/agent-run'
import { canonical } from '../metrics/detectors/repeated-calls'
import type { Message, Span } from '../trace/span'
import type { Trace } from '../trace/trace'
import { oneLineExcerpt } from '../verdict/text'
import { canonicalView } from './canonical'
import { errorText, isMessageList, payloadText } from './render'

/** What a step is. */
export type StepKind = 'plan' | 'call' | 'code' | 'delegate' | 'answer'

/** One compact step. `key` identifies the call (tool + canonical arguments) for repeat detection. */
export interface CompactStep {
  spanId: string
  kind: StepKind
  /** The agent run it belongs to (agent span id, '' outside any agent). */
  scope: string
  /** The agent's name as people know it (e.g. `search_agent`, `CodeAgent.run`). */
  agent: string
  /** Enclosing step span name (`Step 4`), when there is one. */
  step?: string
  tool?: string
  key?: string
  failed: boolean
  /** One line, already cut. */
  text: string
  /** Full plan text for plan steps (cut later to the budget). */
  plan?: string
  startNs: bigint
  endNs: bigint
}

const ARGS_CHARS = 160
const RESULT_CHARS = 160
const ERROR_CHARS = 200
const CODE_CHARS = 200

// The closing fence is optional: an unterminated block is exactly what a parsing error looks like.
const CODE_BLOCK = /Code:\s*```(?:py|python)?\s*\n([\s\S]*?)(?:```|$)/i
const PLAN_LINE = /(^|\n)\s*(#+\s*)?plan\s*:/i
const NUMBERED = /(^|\n)\s*\d+\.\s+\S/g

function outputText(span: Span): string {
  const out = span.output
  if (isMessageList(out)) return out.map((m) => m.content).join('\n')
  return payloadText(out)
}

function toolCallsOf(span: Span): NonNullable<Message['toolCalls']> {
  return isMessageList(span.output) ? span.output.flatMap((m) => m.toolCalls ?? []) : []
}

/** A plan, as planning calls and "Plan:" sections state it (smolagents' planning step, ReAct plans). */
function planOf(span: Span, parent: Span | undefined): string | undefined {
  const text = outputText(span)
  if (text === '') return undefined
  const explicit = PLAN_LINE.exec(text)
  if (explicit) return text.slice(explicit.index).trim()
  // A numbered list written outside any step, by a call that is not a facts survey, is the run's plan.
  const direct = parent?.kind === 'agent'
  const numbered = (text.match(NUMBERED) ?? []).length >= 2
  if (direct && numbered && !/^\W*(#+\s*)?\d*\.?\s*facts/i.test(text.trim())) return text.trim()
  return undefined
}

function argsDigest(value: unknown): string {
  return oneLineExcerpt(typeof value === 'string' ? value : payloadText(value), ARGS_CHARS)
}

function resultDigest(span: Span): string {
  const error = errorText(span)
  if (span.status === 'error' || error !== '')
    return `error: ${oneLineExcerpt(error || 'failed (no message)', ERROR_CHARS)}`
  const out = outputText(span)
  return out === '' ? 'ok' : `ok: ${oneLineExcerpt(out, RESULT_CHARS)}`
}

/**
 * The compact steps of a trace, in canonical order (start time, then content: see `canonicalView`).
 *
 * @example
 * compactSteps(trace).map((s) => s.text) // ['plan: 1. Search … 2. …', 'call web_search(query="…") → error: 404 …', …]
 */
export function compactSteps(trace: Trace): CompactStep[] {
  const steps: CompactStep[] = []
  const scopeOf = (span: Span): Span | undefined => {
    for (let p = trace.parent(span.id); p; p = trace.parent(p.id)) if (p.kind === 'agent') return p
    return undefined
  }
  const stepOf = (span: Span): Span | undefined => {
    for (let p = trace.parent(span.id); p && p.kind !== 'agent'; p = trace.parent(p.id))
      if (p.kind === 'chain') return p
    return undefined
  }
  const base = (span: Span) => {
    const scope = scopeOf(span)
    const step = stepOf(span)
    return {
      spanId: span.id,
      scope: scope?.id ?? '',
      agent: scope ? agentName(scope) : '',
      ...(step ? { step: step.name } : {}),
      startNs: span.startNs,
      endNs: span.endNs,
    }
  }
  const spans = canonicalView(trace).spans
  for (const span of spans) {
    const parent = trace.parent(span.id)
    if (span.kind === 'agent' && scopeOf(span)) {
      const task = taskOf(span)
      steps.push({
        ...base(span),
        kind: 'delegate',
        tool: agentName(span),
        key: `${agentName(span)}\u0000${canonical(task)}`,
        failed: span.status === 'error',
        text: `delegate to ${agentName(span)}: ${oneLineExcerpt(task, ARGS_CHARS)} → ${resultDigest(span)}`,
      })
    } else if (span.kind === 'tool') {
      const tool = span.toolName ?? span.name
      const args = span.toolArgs ?? span.input
      const answer = FINAL_ANSWER_TOOLS.has(tool)
      steps.push({
        ...base(span),
        kind: answer ? 'answer' : 'call',
        tool,
        key: `${tool}\u0000${canonical(args)}`,
        failed: span.status === 'error' || errorText(span) !== '',
        text: answer
          ? `final answer: ${argsDigest(args)}`
          : `call ${tool}(${argsDigest(args)}) → ${resultDigest(span)}`,
      })
    } else if (span.kind === 'llm') {
      const plan = planOf(span, parent)
      if (plan)
        steps.push({ ...base(span), kind: 'plan', failed: false, plan, text: `plan: ${oneLineExcerpt(plan, 300)}` })
      steps.push(...actionsOf(trace, span, base(span)))
    }
  }
  const root = spans.find((s) => s.kind === 'agent')
  if (root && !steps.some((s) => s.kind === 'answer') && root.output !== undefined) {
    steps.push({
      ...base(root),
      scope: root.id,
      agent: agentName(root),
      kind: 'answer',
      failed: false,
      text: `final answer: ${argsDigest(root.output)}`,
    })
  }
  return steps
}

type StepBase = Pick<CompactStep, 'spanId' | 'scope' | 'agent' | 'step' | 'startNs' | 'endNs'>

/** Actions an LLM call took that no TOOL span records: code blobs (CodeAgent) and bare tool calls. */
function actionsOf(trace: Trace, llm: Span, base: StepBase): CompactStep[] {
  const parent = trace.parent(llm.id)
  const siblings = parent ? trace.children(parent.id) : []
  // The step span carries what running the action gave (observation or error).
  const outcome = parent?.kind === 'chain' ? resultDigest(parent) : undefined
  const failed = parent?.kind === 'chain' && (parent.status === 'error' || errorText(parent) !== '')
  const code = CODE_BLOCK.exec(outputText(llm))?.[1]
  if (code !== undefined) {
    return [
      {
        ...base,
        kind: 'code',
        tool: 'python',
        key: `python\u0000${code.replace(/\s+/g, ' ').trim()}`,
        failed,
        text: `code: ${oneLineExcerpt(code, CODE_CHARS)}${outcome ? ` → ${outcome}` : ''}`,
      },
    ]
  }
  const hasToolSpans = siblings.some((s) => s.kind === 'tool' || (s.kind === 'agent' && s.startNs >= llm.startNs))
  if (hasToolSpans) return []
  return toolCallsOf(llm).map((c) => {
    const answer = FINAL_ANSWER_TOOLS.has(c.name)
    return {
      ...base,
      kind: answer ? ('answer' as const) : ('call' as const),
      tool: c.name,
      key: `${c.name}\u0000${canonical(c.arguments)}`,
      failed,
      text: answer
        ? `final answer: ${argsDigest(c.arguments)}`
        : `call ${c.name}(${argsDigest(c.arguments)})${outcome ? ` → ${outcome}` : ''}`,
    }
  })
}

/**
 * The task an agent span was given: `input.task` (smolagents), else its input as text.
 *
 * @example
 * taskOf(rootAgent) // 'You have one question to answer …'
 */
export function taskOf(agent: Span): string {
  const input = agent.input
  if (
    input &&
    typeof input === 'object' &&
    !Array.isArray(input) &&
    typeof (input as { task?: unknown }).task === 'string'
  )
    return (input as { task: string }).task
  return payloadText(input)
}

/**
 * What the run was asked: the root agent's task, else the first user message of the first LLM call
 * (GenAI traces often record the task only there), else the root span's input.
 *
 * @example
 * runTask(trace) // 'Where is my order A-1042?'
 */
export function runTask(trace: Trace): string {
  const spans = canonicalView(trace).spans
  const root = spans.find((s) => s.kind === 'agent')
  const task = root ? taskOf(root) : ''
  if (task) return task
  for (const llm of spans.filter((s) => s.kind === 'llm')) {
    if (!isMessageList(llm.input)) continue
    const user = llm.input.find((m) => m.role === 'user' && m.content.trim() !== '')
    if (user) return user.content
  }
  return payloadText(trace.roots[0]?.input)
}

/**
 * The run's final answer: the root agent's output, else the last answer step, else the text of the
 * last LLM output.
 *
 * @example
 * finalAnswer(trace, compactSteps(trace)) // 'Your order A-1042 has shipped …'
 */
export function finalAnswer(trace: Trace, steps: readonly CompactStep[]): string {
  const spans = canonicalView(trace).spans
  const root = spans.find((s) => s.kind === 'agent')
  const out = root ? payloadText(root.output) : ''
  if (out) return out
  const last = [...steps].reverse().find((s) => s.kind === 'answer')
  if (last) return last.text
  const llms = spans.filter((s) => s.kind === 'llm')
  for (let i = llms.length - 1; i >= 0; i--) {
    const text = outputText(llms[i]).trim()
    if (text) return text
  }
  return ''
}

/** A managed agent's name from its task preamble (smolagents: "You're a helpful agent named 'x'"), else the span name. */
export function agentName(agent: Span): string {
  const named = /agent named '([^']+)'/.exec(taskOf(agent).slice(0, 300))
  return named ? named[1] : agent.name
}

/**
 * One line for a step: `[search_agent · Step 2] call web_search(…) → ok: …`.
 *
 * @example
 * compactSteps(trace).map(stepLine).join('\n')
 */
export function stepLine(step: CompactStep): string {
  const where = [step.agent, step.step].filter(Boolean).join(' · ')
  return `${where ? `[${where}] ` : ''}${step.text}`
}
