// The o200k tokenizer (~1.6 s to load) is loaded only when a prompt may be over its budget: a replayed
// diagnosis of a small trace never imports it, one whose prompts must be fitted loads it once per worker.
// Its own file: the load count is per module registry, and tests in a file may run in any order.
import { join } from 'node:path'
import { expect, test, vi } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { diagnose } from '../../src/diagnosis/diagnose'
import { SCENARIOS, scenarioJudge } from './replayed-prompts'

const tokenizer = vi.hoisted(() => ({ loads: 0 }))
vi.mock('js-tiktoken/ranks/o200k_base', async (importOriginal) => {
  tokenizer.loads++
  return importOriginal()
})

const CASSETTE = join(import.meta.dirname, '__verdicts__/replayed-prompts.test.ts.json')
const NO_JUDGE = 'http://127.0.0.1:9/v1'

async function replay(name: string) {
  const s = SCENARIOS.find((x) => x.name.startsWith(name))!
  const judge = withCassette(scenarioJudge(s.model, NO_JUDGE), { file: CASSETTE, mode: 'replay' })
  const d = await diagnose(await s.trace(), { judge, budgetTokens: s.budgetTokens, judgeDetectorSpans: true })
  expect({ made: d.stats.judgeCalls, unjudgeable: d.stats.unjudgeable }).toEqual({ made: 0, unjudgeable: 0 })
  return d
}

test('a replayed small trace never loads the tokenizer; fitted prompts load it once', async () => {
  const small = await replay('small trace')
  expect(small.stats.cachedCalls).toBe(3)
  expect(tokenizer.loads).toBe(0)
  await replay('TRAIL GAIA trace, 4,000')
  expect(tokenizer.loads).toBe(1)
  await replay('TRAIL trace, Claude')
  expect(tokenizer.loads).toBe(1)
})
