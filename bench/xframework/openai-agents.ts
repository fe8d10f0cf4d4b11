// A small agent built with the OpenAI Agents SDK (JS), run against the scripted model server, its spans taken from
// the SDK's own tracing (a TracingProcessor) and exported as OpenTelemetry spans with GenAI semantic-convention
// attributes: agent → invoke_agent, generation → chat, function → execute_tool.
import {
  Agent,
  run,
  setTraceProcessors,
  setTracingDisabled,
  tool,
  type Span as AgentsSpan,
  type TracingProcessor,
} from '@openai/agents-core'
import { OpenAIChatCompletionsModel } from '@openai/agents-openai'
import { ROOT_CONTEXT, SpanStatusCode, trace, type Span as OtelSpan, type Tracer } from '@opentelemetry/api'
import OpenAI from 'openai'
import * as z from 'zod'
import { runRecorder } from './otel'
import type { Scenario, ToolSpec } from './scenarios'

type Data = Record<string, unknown> & { type: string }

const ms = (iso: string | null) => (iso ? new Date(iso) : new Date())

/** GenAI messages (`gen_ai.input.messages` shape) from chat-completions messages as the SDK records them. */
function genAiMessages(messages: unknown): string {
  // A generation's output is the whole chat completion: its choices' messages are the output messages.
  const list = (Array.isArray(messages) ? (messages as Array<Record<string, unknown>>) : []).flatMap((m) =>
    Array.isArray(m.choices) ? (m.choices as Array<{ message: Record<string, unknown> }>).map((c) => c.message) : [m],
  )
  return JSON.stringify(
    list.map((m) => {
      const parts: unknown[] = []
      if (typeof m.content === 'string' && m.content !== '') {
        parts.push(
          m.role === 'tool'
            ? { type: 'tool_call_response', id: m.tool_call_id, response: m.content }
            : { type: 'text', content: m.content },
        )
      }
      for (const c of (m.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>) ?? [])
        parts.push({ type: 'tool_call', id: c.id, name: c.function.name, arguments: c.function.arguments })
      return { role: m.role, parts }
    }),
  )
}

/** Collects the SDK's spans of one run and replays them as OTel spans once the trace ends (parents first). */
class GenAiExporter implements TracingProcessor {
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's processor interface hands spans of any span data
  private spans: AgentsSpan<any>[] = []
  constructor(private readonly tracer: Tracer) {}
  async onTraceStart(): Promise<void> {}
  async onSpanStart(): Promise<void> {}
  // biome-ignore lint/suspicious/noExplicitAny: as above
  async onSpanEnd(span: AgentsSpan<any>): Promise<void> {
    this.spans.push(span)
  }
  async onTraceEnd(): Promise<void> {}
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}

  /** Emits the collected spans under one root span named for the workflow. */
  emit(workflow: string, started: Date, ended: Date): void {
    const root = this.tracer.startSpan(workflow, { startTime: started })
    const made = new Map<string, OtelSpan>()
    const byStart = [...this.spans].sort((a, b) => ms(a.startedAt).getTime() - ms(b.startedAt).getTime())
    const pending = new Set(byStart)
    // Parents end after their children, so the SDK reports them later: create in start order, parents first.
    while (pending.size > 0) {
      for (const s of pending) {
        const parentId = s.parentId
        if (parentId && !made.has(parentId) && byStart.some((p) => p.spanId === parentId)) continue
        const parent = (parentId && made.get(parentId)) || root
        const ctx = trace.setSpan(ROOT_CONTEXT, parent)
        const { name, attributes } = this.describe(s.spanData as Data)
        const otel = this.tracer.startSpan(name, { startTime: ms(s.startedAt), attributes }, ctx)
        if (s.error) {
          otel.setStatus({ code: SpanStatusCode.ERROR, message: s.error.message })
          otel.recordException({ name: 'Error', message: `${s.error.message} ${JSON.stringify(s.error.data ?? {})}` })
        }
        made.set(s.spanId, otel)
        pending.delete(s)
      }
    }
    for (const s of byStart) made.get(s.spanId)?.end(ms(s.endedAt))
    root.end(ended)
  }

  private describe(d: Data): { name: string; attributes: Record<string, string | number | string[]> } {
    switch (d.type) {
      case 'agent':
        return {
          name: `invoke_agent ${d.name}`,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': String(d.name),
            'gen_ai.system': 'openai',
            // The SDK's agent span lists the tools' names; GenAI's attribute for the tools offered to the agent.
            ...(Array.isArray(d.tools)
              ? {
                  'gen_ai.tool.definitions': JSON.stringify(
                    (d.tools as string[]).map((name) => ({ type: 'function', name })),
                  ),
                }
              : {}),
          },
        }
      case 'generation': {
        const usage = (d.usage ?? {}) as { input_tokens?: number; output_tokens?: number }
        return {
          name: `chat ${d.model}`,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.system': 'openai',
            'gen_ai.request.model': String(d.model),
            'gen_ai.input.messages': genAiMessages(d.input),
            'gen_ai.output.messages': genAiMessages(d.output),
            ...(usage.input_tokens !== undefined ? { 'gen_ai.usage.input_tokens': usage.input_tokens } : {}),
            ...(usage.output_tokens !== undefined ? { 'gen_ai.usage.output_tokens': usage.output_tokens } : {}),
          },
        }
      }
      case 'function':
        return {
          name: `execute_tool ${d.name}`,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': String(d.name),
            'gen_ai.tool.call.arguments': String(d.input ?? ''),
            'gen_ai.tool.call.result': String(d.output ?? ''),
          },
        }
      default:
        return { name: `openai.agents.${d.type}`, attributes: {} }
    }
  }
}

function sdkTool(spec: ToolSpec, raise: string | undefined) {
  return tool({
    name: spec.name,
    description: spec.description,
    parameters: z.object({ [spec.param]: z.string() }),
    execute: async (input: Record<string, string>) => {
      if (raise) throw new Error(raise)
      return spec.run(input[spec.param])
    },
  })
}

/**
 * Runs the scenario's agent once with the OpenAI Agents SDK; returns its trace as OTLP JSON.
 *
 * @example
 * const json = await runOpenAiAgents(scenario, model.url, 7)
 */
export async function runOpenAiAgents(scenario: Scenario, modelUrl: string, seed: number): Promise<string> {
  const recorder = runRecorder('openai-agents-demo', seed)
  const exporter = new GenAiExporter(recorder.provider.getTracer('openai-agents-genai-exporter'))
  setTracingDisabled(false)
  setTraceProcessors([exporter])
  const client = new OpenAI({ apiKey: 'sk-local-scripted', baseURL: `${modelUrl}/v1`, maxRetries: 0 })
  const { task } = scenario
  const agent = new Agent({
    name: `${task.id}_assistant`,
    instructions: task.system,
    model: new OpenAIChatCompletionsModel(client, 'gpt-4.1-mini'),
    tools: [task.lookup, task.decoy].map((t) => sdkTool(t, scenario.tools[t.name]?.raise)),
  })
  const started = new Date()
  try {
    await run(agent, scenario.instance.question, { maxTurns: 10 })
  } catch {
    // A planted rate limit ends the run with an error; its spans are what we keep.
  }
  exporter.emit(`agent run ${task.id}`, started, new Date())
  await recorder.provider.forceFlush()
  return recorder.otlpJson()
}
