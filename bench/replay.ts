// Replay: diagnose a few TRAIL traces with the judge through a cassette in record mode, then again in
// replay mode. Judge calls made on replay must be 0; the detail compares the replay's wall time with a
// deterministic-only diagnosis (no judge) of the same traces.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withCassette } from '../src/cassette/cassette-judge'
import { diagnose } from '../src/diagnosis/diagnose'
import { openaiJudge } from '../src/judges/openai'
import { startFakeJudge } from '../src/testing/fake-judge'
import { parseTrace } from '../src/trace/parse'
import type { Trace } from '../src/trace/trace'
import type { Emit } from './emit'

const TRAIL_DIR =
  process.env.TRAIL_DIR ?? resolve(fileURLToPath(new URL('..', import.meta.url)), '../shared/datasets/trail')
const TRACES = [
  'GAIA/0ebe673d64647ec44c370638b82d3c78.json',
  'GAIA/1427b326e21963a1228647ad8dff2bf4.json',
  'GAIA/f39aec9b8a61fd2aaed5849cc00bc165.json',
  'GAIA/41bbc898aa7de0f31d2382ff57700a76.json',
  'SWE_Bench/72822db6e120878d916b515c2501246b.json',
]
const ROUNDS = 5

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

export async function run(emit: Emit): Promise<void> {
  const traces: Trace[] = await Promise.all(
    TRACES.map(async (f) => parseTrace(await readFile(join(TRAIL_DIR, f), 'utf8'))),
  )
  const dir = await mkdtemp(join(tmpdir(), 'bench-replay-'))
  const fake = await startFakeJudge({ latencyMs: 0 })
  try {
    const file = join(dir, 'diagnosis.json')
    const judge = openaiJudge({ model: 'fake-judge', baseURL: fake.baseURL })
    const recorder = withCassette(judge, { file, mode: 'record' })
    for (const t of traces) await diagnose(t, { judge: recorder })
    await recorder.flush()
    const recorded = fake.calls.length
    fake.reset()

    const replayWalls: number[] = []
    const deterministicWalls: number[] = []
    let cached = 0
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh cassette judge per round: each replay reads the file, as a CI run would.
      const replayer = withCassette(judge, { file, mode: 'replay' })
      replayWalls.push(
        await timed(async () => {
          for (const t of traces) cached += (await diagnose(t, { judge: replayer })).stats.cachedCalls
        }),
      )
      deterministicWalls.push(
        await timed(async () => {
          for (const t of traces) await diagnose(t)
        }),
      )
    }
    const ratio = median(replayWalls) / median(deterministicWalls)
    emit(
      'replay.judge_calls',
      fake.calls.length,
      `recorded=${recorded} replayed=${cached / ROUNDS} traces=${traces.length} wall_ratio_vs_deterministic=${ratio.toFixed(2)} (median of ${ROUNDS})`,
    )
  } finally {
    await fake.close()
    await rm(dir, { recursive: true, force: true })
  }
}
