// The same small agent built with the Vercel AI SDK (`generateText` with tools and a step limit), its spans
// recorded by the SDK's own OpenTelemetry telemetry (`experimental_telemetry`: `ai.*` spans with GenAI attributes).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { context } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import { runRecorder } from './otel'
import type { Scenario, ToolSpec } from './scenarios'

let contextManagerSet = false

function aiTool(spec: ToolSpec, raise: string | undefined) {
  return tool({
    description: spec.description,
    inputSchema: jsonSchema<Record<string, string>>({
      type: 'object',
      properties: { [spec.param]: { type: 'string' } },
      required: [spec.param],
    }),
    execute: async (input: Record<string, string>) => {
      if (raise) throw new Error(raise)
      return spec.run(input[spec.param])
    },
  })
}

/**
 * Runs the scenario's agent once with the Vercel AI SDK; returns its trace as OTLP JSON.
 *
 * @example
 * const json = await runAiSdk(scenario, model.url, 7)
 */
export async function runAiSdk(scenario: Scenario, modelUrl: string, seed: number): Promise<string> {
  // The SDK nests its spans through the active context: without a context manager each would be a trace of its own.
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    contextManagerSet = true
  }
  const recorder = runRecorder('ai-sdk-demo', seed)
  const provider = createOpenAICompatible({ name: 'scripted', baseURL: `${modelUrl}/v1`, apiKey: 'sk-local-scripted' })
  const { task } = scenario
  try {
    await generateText({
      model: provider.chatModel('gpt-4.1-mini'),
      system: task.system,
      prompt: scenario.instance.question,
      tools: Object.fromEntries(
        [task.lookup, task.decoy].map((t) => [t.name, aiTool(t, scenario.tools[t.name]?.raise)]),
      ),
      stopWhen: stepCountIs(10),
      maxRetries: 0,
      experimental_telemetry: {
        isEnabled: true,
        functionId: `${task.id}_assistant`,
        tracer: recorder.provider.getTracer('ai'),
      },
    })
  } catch {
    // A planted rate limit ends the run with an error; its spans are what we keep.
  }
  await recorder.provider.forceFlush()
  return recorder.otlpJson()
}
