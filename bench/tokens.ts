// Token economy: judge mode over every TRAIL trace against the fake judge (latency 0) — the largest
// prompt any judge call sent, as the fake server counted it with the real o200k tokenizer (prompt text +
// requested schema) — and how many calls were over the budget (must be 0), versus the whole-trace prompt
// a monolithic judge needs (ceil(chars / 4) there), and how many traces overflow 128k/200k/1M.
import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { diagnose } from '../src/diagnosis/diagnose'
import { estimateTokens } from '../src/diagnosis/tokens'
import { DEFAULT_BUDGET_TOKENS } from '../src/diagnosis/types'
import { openaiJudge } from '../src/judges/openai'
import { startFakeJudge } from '../src/testing/fake-judge'
import { parseTrace } from '../src/trace/parse'
import type { Emit } from './emit'

const TRAIL_DIR =
  process.env.TRAIL_DIR ?? resolve(fileURLToPath(new URL('..', import.meta.url)), '../shared/datasets/trail')

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

export async function run(emit: Emit): Promise<void> {
  const files = ['GAIA', 'SWE_Bench'].flatMap((split) =>
    readdirSync(join(TRAIL_DIR, split))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => join(TRAIL_DIR, split, f)),
  )
  const fake = await startFakeJudge({ latencyMs: 0 })
  try {
    const judge = openaiJudge({ model: 'fake-judge', baseURL: fake.baseURL })
    const monolithic: number[] = []
    const ratios: number[] = []
    let maxPrompt = 0
    let overBudget = 0
    let calls = 0
    let oursEstimatedMax = 0
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      const whole = estimateTokens(text)
      monolithic.push(whole)
      fake.reset() // the fake keeps every prompt; count per trace so memory stays flat
      const d = await diagnose(parseTrace(text), { judge, judgeDetectorSpans: true })
      const counted = fake.calls.map((c) => c.usage?.prompt_tokens ?? 0)
      const traceMax = Math.max(0, ...counted)
      calls += counted.length
      maxPrompt = Math.max(maxPrompt, traceMax)
      overBudget += counted.filter((t) => t > DEFAULT_BUDGET_TOKENS).length
      oursEstimatedMax = Math.max(oursEstimatedMax, d.stats.maxPromptTokens)
      if (traceMax > 0) ratios.push(whole / traceMax)
    }
    const traces = `traces=${files.length}`
    emit(
      'tokens.max_prompt_per_call',
      maxPrompt,
      `budget=${DEFAULT_BUDGET_TOKENS} calls=${calls} ${traces} (fake judge's o200k count; ours incl. schema and framing ${oursEstimatedMax})`,
    )
    emit('tokens.monolithic_median', median(monolithic), traces)
    emit('tokens.monolithic_max', Math.max(...monolithic), traces)
    for (const [key, limit] of [
      ['128k', 128_000],
      ['200k', 200_000],
      ['1m', 1_000_000],
    ] as const) {
      emit(`tokens.monolithic_over_${key}`, monolithic.filter((t) => t > limit).length, `of ${files.length} traces`)
    }
    emit('tokens.over_budget', overBudget, `calls over ${DEFAULT_BUDGET_TOKENS} o200k tokens, of ${calls}; goal=0`)
    emit(
      'tokens.whole_trace_per_largest_call_median',
      median(ratios),
      'per trace: whole-trace tokens ÷ our largest prompt',
    )
  } finally {
    await fake.close()
  }
}
