// Generates the cross-framework failure set: every scenario run once with each real SDK against the scripted model
// server, the trace written as OTLP JSON under test/fixtures/xframework/<sdk>/, the gold in gold.json.
// Run: `node --import tsx bench/xframework/generate.ts` (local only: 127.0.0.1, no keys, no network).
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseTrace } from '../../src/trace/parse'
import { runAiSdk } from './ai-sdk'
import { FIXTURE_DIR } from './fixtures'
import { resolveGold, type GoldFile } from './gold'
import { runLangGraph } from './langgraph'
import { startModelServer } from './model-server'
import { runOpenAiAgents } from './openai-agents'
import { scenarios } from './scenarios'

const SDKS = {
  'openai-agents': runOpenAiAgents,
  langgraph: runLangGraph,
  'ai-sdk': runAiSdk,
} as const

async function main(): Promise<void> {
  const model = await startModelServer()
  const gold: GoldFile = { traces: [] }
  let seed = 1
  try {
    for (const [sdk, runAgent] of Object.entries(SDKS)) {
      await mkdir(join(FIXTURE_DIR, sdk), { recursive: true })
      for (const scenario of scenarios()) {
        model.use(scenario)
        const json = await runAgent(scenario, model.url, seed++)
        const file = `${sdk}/${scenario.id}.json`
        const trace = parseTrace(json, file)
        gold.traces.push({
          file,
          sdk,
          scenario: scenario.id,
          task: scenario.task.id,
          failure: scenario.failure,
          budget: scenario.budget,
          gold: resolveGold(trace, scenario.gold, file),
        })
        await writeFile(join(FIXTURE_DIR, file), `${json}\n`)
      }
    }
  } finally {
    await model.close()
  }
  await writeFile(join(FIXTURE_DIR, 'gold.json'), `${JSON.stringify(gold, null, 1)}\n`)
  process.stdout.write(`wrote ${gold.traces.length} traces and their gold to ${FIXTURE_DIR}\n`)
}

await main()
