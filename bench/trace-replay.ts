// Replayed trace assertions, timed as a user's run sees them: a generated Vitest project on the built package
// records its verdicts once against the fake judge, then runs again in replay mode (0 judge calls). Each figure
// is a test's duration from Vitest's JSON reporter, files one at a time (--no-file-parallelism).
//  - replay.trace_assertion_ms.3 / .100: `toHaveNoFailingSpans` on a 3-span and a 100-span synthetic run (every
//    llm and tool span judged: 1 and 66 calls), in a fresh worker after a replayed output matcher (its time in
//    the detail). Goal ≤ 100 ms for the 3-span trace.
//  - replay.trace_100k_ms: the same matcher on a 100,000-span run (a 65 MB OTLP file read by path: ingest,
//    detectors, diagnosis, report tree), 100 spans of it judged (`select` on a marked attribute, so the cassette
//    stays small); `replay.trace_100k.per_span_ratio` is its per-span cost ÷ that of a 10,000-span run with the
//    same 100 judged spans (goal ≤ 1.2: linear).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeJudge } from '../src/testing/fake-judge'
import { packageUnderTest } from '../test/e2e/user-project'
import type { Emit } from './emit'
import { project } from './suite'
import { syntheticOtlpTrace } from './synthetic-otlp'
import { failureLines, vitestRun } from './vitest-project'

const JUDGED = 100
const MARK = 'bench.judge'

/** A synthetic run of `spans` spans with `judged` of its tool spans marked for `select: { attr: MARK }`. */
function markedTrace(spans: number, judged: number): string {
  const doc = JSON.parse(syntheticOtlpTrace(spans)) as {
    resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; attributes: unknown[] }> }> }>
  }
  const tools = doc.resourceSpans[0].scopeSpans[0].spans.filter((s) => s.name.startsWith('execute_tool'))
  const every = Math.max(1, Math.floor(tools.length / judged))
  for (let i = 0; i < tools.length && i / every < judged; i += every)
    tools[i].attributes.push({ key: MARK, value: { stringValue: 'yes' } })
  return JSON.stringify(doc)
}

const SMALL = `import { expect, test } from 'vitest'

test('output', async () => {
  await expect('The total is 42 dollars.').toBeCorrect({ reference: 'Total: 42 dollars', input: 'Total of order 42?' })
})

test('trace 3', async () => {
  await expect('traces/t3.json').toHaveNoFailingSpans()
})

test('trace 3, again', async () => {
  await expect('traces/t3.json').toHaveNoFailingSpans()
})

test('trace 100', async () => {
  // The synthetic run has failing tool calls (every 25th step): the detectors fail it, with or without the judge.
  await expect('traces/t100.json').not.toHaveNoFailingSpans()
})
`

const LARGE = `import { expect, test } from 'vitest'

for (const n of ['10k', '100k'])
  test('trace ' + n, async () => {
    await expect('traces/t' + n + '.json').not.toHaveNoFailingSpans({ select: { attr: '${MARK}' } })
  }, 600_000)
`

/**
 * Bench module `trace-replay`: `replay.trace_assertion_ms.3`, `.100`, `replay.trace_100k_ms` and
 * `replay.trace_100k.per_span_ratio`.
 *
 * @example
 * await run((key, value, detail) => console.log(key, value, detail ?? ''))
 */
export async function run(emit: Emit): Promise<void> {
  const pkg = await packageUnderTest()
  const dir = project(pkg.dir, {
    'package.json': '{"type":"module"}',
    'vitest.config.ts': `import { defineConfig } from 'vitest/config'\nimport { agentVerdict } from 'agent-verdict/vitest-plugin'\n\nexport default defineConfig({ plugins: [agentVerdict({ reporter: { silent: true } })], test: { testTimeout: 600_000, hookTimeout: 600_000 } })\n`,
    'small.test.ts': SMALL,
    'large.test.ts': LARGE,
  })
  const traces = join(dir, 'traces')
  mkdirSync(traces)
  writeFileSync(join(traces, 't3.json'), syntheticOtlpTrace(3))
  writeFileSync(join(traces, 't100.json'), syntheticOtlpTrace(100))
  writeFileSync(join(traces, 't10k.json'), markedTrace(10_000, JUDGED))
  writeFileSync(join(traces, 't100k.json'), markedTrace(100_000, JUDGED))
  const fake = await startFakeJudge({ defaultVerdict: { verdict: 'pass', reason: 'Matches the reference.' } })
  const env = { AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge` }
  try {
    const recorded = await vitestRun(dir, { ...env, AGENT_VERDICT_MODE: 'record' }, ['--no-file-parallelism'])
    if (recorded.code !== 0) throw new Error(`recording run failed:\n${failureLines(recorded.output)}`)
    const calls = fake.calls.length
    fake.reset()
    const replay = await vitestRun(dir, { ...env, AGENT_VERDICT_MODE: 'replay' }, ['--no-file-parallelism'])
    if (replay.code !== 0) throw new Error(`replay run failed:\n${failureLines(replay.output)}`)
    const d = (name: string) => replay.durations.get(name) ?? Number.NaN
    const output = d('small.test.ts › output')
    const tail = `replayed (0 judge calls: ${fake.calls.length}; ${calls} recorded), cold worker, after a replayed output matcher of ${output.toFixed(0)} ms`
    emit(
      'replay.trace_assertion_ms.3',
      Math.round(d('small.test.ts › trace 3')),
      `${tail}; the same assertion again in that worker ${d('small.test.ts › trace 3, again').toFixed(0)} ms; goal ≤ 100`,
    )
    emit('replay.trace_assertion_ms.100', Math.round(d('small.test.ts › trace 100')), `${tail}; 66 spans judged`)
    const t10k = d('large.test.ts › trace 10k')
    const t100k = d('large.test.ts › trace 100k')
    emit(
      'replay.trace_100k_ms',
      Math.round(t100k),
      `100,000 spans by path (ingest + detectors + ${JUDGED} judged spans replayed + report tree); 10,000 spans: ${t10k.toFixed(0)} ms; peak RSS of the run ${replay.peakRssMb.toFixed(0)} MB`,
    )
    emit(
      'replay.trace_100k.per_span_ratio',
      t100k / 100_000 / (t10k / 10_000),
      'per-span cost at 100k ÷ at 10k, same judged spans (goal ≤ 1.2)',
    )
  } finally {
    await fake.close()
    rmSync(dir, { recursive: true, force: true })
    if (pkg.built === 'private build') rmSync(pkg.dir, { recursive: true, force: true })
  }
}
