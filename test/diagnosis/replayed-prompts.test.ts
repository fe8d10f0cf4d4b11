// The cassette keys of trace diagnoses do not move when the prompt fitting changes how it counts: the cassette
// next to this file was recorded (fake judge) before the tokenizer was made lazy, and every scenario replays
// from it with no judge reachable — a changed prompt would be a miss, and a miss in replay mode is an error.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { diagnose } from '../../src/diagnosis/diagnose'
import { SCENARIOS, scenarioJudge } from './replayed-prompts'

const CASSETTE = join(import.meta.dirname, '__verdicts__/replayed-prompts.test.ts.json')
/** Nothing listens on port 9 (discard): a call that were made would fail, not answer. */
const NO_JUDGE = 'http://127.0.0.1:9/v1'

test('every scenario replays all its calls from the cassette recorded before, and uses every entry', async () => {
  const used = new Set<string>()
  for (const s of SCENARIOS) {
    const judge = withCassette(scenarioJudge(s.model, NO_JUDGE), { file: CASSETTE, mode: 'replay' })
    const d = await diagnose(await s.trace(), { judge, budgetTokens: s.budgetTokens, judgeDetectorSpans: true })
    expect({ scenario: s.name, unjudgeable: d.stats.unjudgeable, made: d.stats.judgeCalls }).toEqual({
      scenario: s.name,
      unjudgeable: 0,
      made: 0,
    })
    expect(d.stats.cachedCalls).toBeGreaterThan(0)
    expect(d.stats.maxPromptTokens).toBeLessThanOrEqual(s.budgetTokens ?? 16_000)
    for (const k of judge.usedKeys) used.add(k)
  }
  const recorded: Array<{ key: string }> = JSON.parse(readFileSync(CASSETTE, 'utf8')).entries
  expect([...used].sort()).toEqual(recorded.map((e) => e.key).sort())
})
