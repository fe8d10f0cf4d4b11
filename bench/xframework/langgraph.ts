// The same small agent built with LangGraph.js (the prebuilt ReAct agent, a LangChain ChatOpenAI model and
// LangChain tools), its spans recorded by the OpenInference LangChain instrumentation (OpenInference conventions).
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain'
import * as CallbackManagerModule from '@langchain/core/callbacks/manager'
import { tool } from '@langchain/core/tools'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { ChatOpenAI } from '@langchain/openai'
import * as z from 'zod'
import { runRecorder } from './otel'
import type { Scenario, ToolSpec } from './scenarios'

let instrumentation: LangChainInstrumentation | undefined

function lcTool(spec: ToolSpec, raise: string | undefined) {
  return tool(
    async (input: Record<string, string>) => {
      if (raise) throw new Error(raise)
      return spec.run(input[spec.param])
    },
    { name: spec.name, description: spec.description, schema: z.object({ [spec.param]: z.string() }) },
  )
}

/**
 * Runs the scenario's agent once with LangGraph; returns its trace as OTLP JSON.
 *
 * @example
 * const json = await runLangGraph(scenario, model.url, 7)
 */
export async function runLangGraph(scenario: Scenario, modelUrl: string, seed: number): Promise<string> {
  const recorder = runRecorder('langgraph-demo', seed)
  if (!instrumentation) {
    instrumentation = new LangChainInstrumentation()
    instrumentation.manuallyInstrument(CallbackManagerModule)
  }
  instrumentation.setTracerProvider(recorder.provider)
  const { task } = scenario
  const llm = new ChatOpenAI({
    model: 'gpt-4.1-mini',
    apiKey: 'sk-local-scripted',
    maxRetries: 0,
    configuration: { baseURL: `${modelUrl}/v1` },
  })
  const agent = createReactAgent({
    llm,
    tools: [task.lookup, task.decoy].map((t) => lcTool(t, scenario.tools[t.name]?.raise)),
    prompt: task.system,
    name: `${task.id}_assistant`,
  })
  try {
    await agent.invoke({ messages: [{ role: 'user', content: scenario.instance.question }] }, { recursionLimit: 20 })
  } catch {
    // A planted rate limit ends the run with an error; its spans are what we keep.
  }
  await recorder.provider.forceFlush()
  return recorder.otlpJson()
}
