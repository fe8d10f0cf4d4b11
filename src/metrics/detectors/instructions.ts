// Behaviour the run's own instructions contradict, read from what any framework records: the system message of the
// run's model calls, the tools its model calls were offered (GenAI `gen_ai.tool.definitions`, OpenInference
// `llm.tools.N.tool.json_schema`), the tool spans and tool calls, and the final answer. No framework's texts.
import type { Message, Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'
import { outputText } from './agent-run'
import { BEHAVIOR_RULES, type BehaviorRuleId } from './behavior-rules'
import { quoteEvidence, type Finding } from './finding'
import { escapeRegExp } from './python-code'
import { regexPerKey } from './scan'

export const INSTRUCTIONS_DETECTOR = 'instructions'

// "Reply with one JSON object …", "Respond in JSON", "Return valid JSON": the answer must be JSON.
const JSON_REQUIRED =
  /\b(?:reply|respond|answer|output|return|format)\b[^.\n]{0,40}\b(?:in|as|with)\b[^.\n]{0,20}\bJSON\b|\bvalid JSON\b/i
// A sentence that makes a tool a condition or an option, not a requirement.
const OPTIONAL = /\b(?:if|when|may|can|could|might|optionally|unless)\b/i

/** One agent run: its model calls and tool calls in start order (the trace, when no span is an agent). */
export interface Run {
  llms: Span[]
  tools: Span[]
}

/** The trace's agent runs (spans grouped by their nearest agent span; one run when no span is an agent). */
export function runsOf(trace: Trace): Run[] {
  const spans = trace.spans
  // The rules read a run's final answer: a trace without model calls has none (and may be 100k tool spans).
  if (!spans.some((s) => s.kind === 'llm')) return []
  const byScope = new Map<string, Run>()
  // Depth-first order: the open ancestors on a stack, each with the run it gives its children (no map per span).
  const openIds: string[] = []
  const openScopes: string[] = []
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]
    while (openIds.length > 0 && openIds[openIds.length - 1] !== span.parentId) {
      openIds.pop()
      openScopes.pop()
    }
    const scope = openScopes.length === 0 ? '' : openScopes[openScopes.length - 1]
    openIds.push(span.id)
    openScopes.push(span.kind === 'agent' ? span.id : scope)
    if (span.kind !== 'llm' && span.kind !== 'tool') continue
    let run = byScope.get(scope)
    if (!run) byScope.set(scope, (run = { llms: [], tools: [] }))
    ;(span.kind === 'llm' ? run.llms : run.tools).push(span)
  }
  const order = (a: Span, b: Span) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0)
  // Spans come in depth-first order, which is start order within a run nearly always: sort only when it is not.
  const sorted = (list: Span[]) => list.every((x, i) => i === 0 || order(list[i - 1], x) <= 0)
  for (const run of byScope.values()) {
    if (!sorted(run.llms)) run.llms.sort(order)
    if (!sorted(run.tools)) run.tools.sort(order)
  }
  return [...byScope.values()]
}

const messages = (value: unknown): Message[] => (Array.isArray(value) ? (value as Message[]) : [])

/** The run's instructions: the system (or developer) messages of its first model call. */
function instructionsOf(llm: Span): string {
  return messages(llm.input)
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => m.content)
    .join('\n')
}

/** The tool calls a model call asked for. */
export const toolCallsOf = (llm: Span) => messages(llm.output).flatMap((m) => m?.toolCalls ?? [])

/** Tools offered to the run's model calls, by name. */
function offeredTools(run: Run, trace: Trace): Set<string> {
  const names = new Set<string>()
  const add = (raw: unknown) => {
    const text = typeof raw === 'string' ? raw : JSON.stringify(raw ?? null)
    for (const m of text.matchAll(/"name"\s*:\s*"([^"]+)"/g)) names.add(m[1])
  }
  for (const llm of run.llms) {
    for (const key in llm.attributes) if (/^llm\.tools\.\d+\.tool\.json_schema$/.test(key)) add(llm.attributes[key])
    add(llm.attributes['gen_ai.tool.definitions'])
    const agent = nearestAgent(trace, llm)
    if (agent) add(agent.attributes['gen_ai.tool.definitions'])
  }
  names.delete('')
  return names
}

function nearestAgent(trace: Trace, span: Span): Span | undefined {
  for (let cur = trace.parent(span.id); cur; cur = trace.parent(cur.id)) if (cur.kind === 'agent') return cur
  return undefined
}

/** The sentence of `text` that requires calling `tool` ("Use get_weather for …", "… with lookup_order"), or undefined. */
function requirement(text: string, tool: string): { at: number } | undefined {
  // Only sentences that name the tool are read (a system prompt runs to many KB).
  for (let at = text.indexOf(tool); at !== -1; at = text.indexOf(tool, at + tool.length)) {
    const start =
      Math.max(
        text.lastIndexOf('.', at),
        text.lastIndexOf('!', at),
        text.lastIndexOf('?', at),
        text.lastIndexOf('\n', at),
      ) + 1
    const ends = [text.indexOf('.', at), text.indexOf('!', at), text.indexOf('?', at), text.indexOf('\n', at)].filter(
      (e) => e !== -1,
    )
    const sentence = text.slice(start, ends.length > 0 ? Math.min(...ends) : text.length)
    if (requires(tool).test(sentence) && !OPTIONAL.test(sentence)) return { at: start }
  }
  return undefined
}

const requires = regexPerKey(
  (tool) => new RegExp(String.raw`\b(?:use|call|using|with|via)\s+(?:the\s+)?[\x60'"]?${escapeRegExp(tool)}\b`, 'i'),
)

/**
 * The final answer: the run's last model call, when it wrote text and asked for no tool, in a run whose tools are
 * called through structured tool calls (or that called none).
 */
export function finalAnswer(run: Run): Span | undefined {
  const last = run.llms[run.llms.length - 1]
  if (!last || last.status === 'error' || toolCallsOf(last).length > 0) return undefined
  // A model that calls tools through code (a code agent) writes text at every step: its last text is no answer.
  if (run.tools.length > 0 && !run.llms.some((l) => toolCallsOf(l).length > 0)) return undefined
  return outputText(last).trim() === '' ? undefined : last
}

function finding(rule: BehaviorRuleId, span: Span, evidence: string, detail: string, evidenceSpanId?: string): Finding {
  const r = BEHAVIOR_RULES[rule]
  return {
    spanId: span.id,
    category: r.category,
    detector: INSTRUCTIONS_DETECTOR,
    evidence,
    reason: `${r.reason}${detail}`,
    severity: 'medium',
    ...(evidenceSpanId ? { evidenceSpanId } : {}),
  }
}

/**
 * Findings for runs whose final answer contradicts their own instructions (the system message of their model
 * calls), on any framework's trace:
 * - the instructions require a tool the model was offered ("Use get_weather for any weather question") and the run
 *   answered without ever calling it: Goal Deviation on the answer when no tool ran at all, Tool Selection Errors
 *   on the first call of another tool when one ran instead;
 * - the instructions require JSON and the answer does not parse as JSON: Formatting Errors on the answer.
 * `runs` are the trace's {@link runsOf} when the caller already has them (`detect()` shares one set).
 *
 * @example
 * detectInstructionBreaches(trace)[0] // { category: 'Formatting Errors', evidence: 'Sure! The answer is 12 °C.', … }
 */
export function detectInstructionBreaches(trace: Trace, runs: readonly Run[] = runsOf(trace)): Finding[] {
  const out: Finding[] = []
  for (const run of runs) {
    const answer = finalAnswer(run)
    if (!answer || run.llms.length === 0) continue
    const instructions = instructionsOf(run.llms[0])
    if (instructions === '') continue
    const called = new Set<string>()
    for (const t of run.tools) called.add(t.toolName ?? t.name)
    for (const llm of run.llms) for (const c of toolCallsOf(llm)) called.add(c.name)
    for (const tool of offeredTools(run, trace)) {
      if (called.has(tool)) continue
      const req = requirement(instructions, tool)
      if (!req) continue
      const quote = quoteEvidence(instructions, req.at)
      if (called.size === 0) {
        const from = answer === run.llms[0] ? undefined : run.llms[0].id
        out.push(finding('instructed-tool-unused', answer, quote, ` (${tool})`, from))
      } else {
        const other = run.llms.find((l) => toolCallsOf(l).some((c) => c.name !== tool))
        if (other) {
          const call = toolCallsOf(other).find((c) => c.name !== tool)!
          out.push(
            finding(
              'instructed-tool-replaced',
              other,
              quoteEvidence(call.arguments),
              ` (${tool}; called ${call.name})`,
            ),
          )
        }
      }
      break
    }
    if (JSON_REQUIRED.test(instructions) && !parsesAsJson(outputText(answer))) {
      const text = outputText(answer)
      out.push(finding('answer-not-json', answer, quoteEvidence(text, text.search(/\S/)), ''))
    }
  }
  return out
}

/** True when the text is a JSON object or array (a fenced ```json block counts). */
function parsesAsJson(text: string): boolean {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*\n?/i, '')
    .replace(/\n?```$/, '')
    .trim()
  if (!body.startsWith('{') && !body.startsWith('[')) return false
  try {
    JSON.parse(body)
    return true
  } catch {
    return false
  }
}
