// Judge scheduling: N judgements through our OpenAI judge (real openai client) against the fake judge
// server (in a worker thread) with fixed latency L at concurrency C. Ideal wall time is ⌈N/C⌉·L; the ratios say how close
// the retry loop and the adaptive limiter get, with and without injected throttling.
import { callJudge } from '../src/judges/judge-call'
import { openaiJudge } from '../src/judges/openai'
import type { FakeJudgeFault } from '../src/testing/schemas'
import OpenAI from 'openai'
import * as z from 'zod'
import type { JudgeRequest } from '../src/judges/types'
import type { Emit } from './emit'
import { startFakeJudgeInWorker, type RemoteFakeJudge } from './fake-judge-worker'

const N = 400
const C = 16
const L = 100
const OUTAGE_MS = 2_000

const SpanVerdictSchema = z.object({ reasoning: z.string(), score: z.number().int().min(1).max(5) })

/** One span judgement, as the diagnosis pass would send it (text only, distinct per span). */
function spanRequest(i: number): JudgeRequest<z.infer<typeof SpanVerdictSchema>> {
  return {
    metric: 'span-quality',
    promptVersion: 'bench',
    system: 'You judge one step of an agent run. Reason first, then score 1-5.',
    content: [
      { type: 'text', text: `Span ${i}: tool call search(query="revenue by region ${i}") returned 3 results.` },
    ],
    schema: SpanVerdictSchema,
    schemaName: 'span_verdict',
  }
}

interface Round {
  wallMs: number
  lost: number
  requests: number
  throttled: number
  cuts: number
  minLimit: number
}

/** Runs N judgements at once through a fresh judge (fresh limiter) and times them. */
async function round(fake: RemoteFakeJudge, faults: FakeJudgeFault[]): Promise<Round> {
  await fake.setFaults(faults)
  await fake.reset()
  const judge = openaiJudge({ model: 'fake-judge', baseURL: fake.baseURL, concurrency: C })
  let minLimit = C
  const watch = setInterval(() => (minLimit = Math.min(minLimit, judge.limiter.limit)), 5)
  const started = performance.now()
  const results = await Promise.all(Array.from({ length: N }, (_, i) => callJudge(judge, spanRequest(i))))
  const wallMs = performance.now() - started
  clearInterval(watch)
  const { calls, stats } = await fake.stats()
  return {
    wallMs,
    lost: results.filter((r) => r.status !== 'ok').length,
    requests: calls,
    throttled: stats.byStatus['429'] ?? 0,
    cuts: judge.limiter.cuts,
    minLimit: Math.min(minLimit, judge.limiter.limit),
  }
}

const ROUNDS = 3

/** Median wall time of N bare `chat.completions.create` calls from C workers. */
async function clientFloor(fake: RemoteFakeJudge): Promise<number> {
  const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'bench', maxRetries: 0 })
  const request = spanRequest(0)
  const body = {
    model: 'fake-judge',
    messages: [{ role: 'user' as const, content: (request.content[0] as { text: string }).text }],
    response_format: { type: 'json_object' as const },
  }
  const walls: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (next++ < N) await client.chat.completions.create(body)
      }),
    )
    walls.push(performance.now() - started)
  }
  return walls.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]
}

/** Median-wall round of several, so one stall on a shared machine does not decide the figure. */
async function medianRound(
  fake: RemoteFakeJudge,
  faults: FakeJudgeFault[],
): Promise<{ median: Round; walls: number[]; lost: number }> {
  const rounds: Round[] = []
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(fake, faults))
  const sorted = [...rounds].sort((a, b) => a.wallMs - b.wallMs)
  return {
    median: sorted[Math.floor(ROUNDS / 2)],
    walls: rounds.map((r) => r.wallMs),
    lost: Math.max(...rounds.map((r) => r.lost)),
  }
}

const detail = (m: { median: Round; walls: number[] }, ideal: number, goal: string) => {
  const r = m.median
  const ratios = m.walls.map((w) => (w / ideal).toFixed(3)).join(',')
  return `runs=${ratios} wall=${Math.round(r.wallMs)}ms requests=${r.requests} 429s=${r.throttled} cuts=${r.cuts} min_limit=${r.minLimit} N=${N} C=${C} L=${L}ms goal${goal}`
}

export async function run(emit: Emit): Promise<void> {
  const fake = await startFakeJudgeInWorker({ latencyMs: L, rules: [{ respond: { score: 4, reason: 'scheduled' } }] })
  try {
    const ideal = Math.ceil(N / C) * L
    // Warm up sockets and JIT so the first timed round is not the one paying for them.
    await round(fake, [])

    const plain = await medianRound(fake, [])
    emit('judge.scheduling.ratio', plain.median.wallMs / ideal, detail(plain, ideal, '<=1.10'))
    // The bare SDK at the same N, C, L (C workers, no judge): the floor this machine allows right now.
    const floor = await clientFloor(fake)
    emit(
      'judge.scheduling.sdk_floor_ratio',
      floor / ideal,
      `wall=${Math.round(floor)}ms bare openai client, ${C} workers`,
    )

    const sporadic = await medianRound(fake, [{ type: 'rate-limit', rate: 0.1, seed: 42, retryAfter: '0.2' }])
    emit('judge.scheduling_429.ratio', sporadic.median.wallMs / ideal, detail(sporadic, ideal, '<=1.30'))
    emit('judge.scheduling_429.lost', sporadic.lost, `max over ${ROUNDS} runs, goal=0`)

    // Every call is answered 429 (retry-after 0.2 s) for the first 2 s, then the server recovers.
    const outage = await medianRound(fake, [{ type: 'rate-limit', firstMs: OUTAGE_MS, retryAfter: '0.2' }])
    emit(
      'judge.outage_2s.ratio',
      outage.median.wallMs / (OUTAGE_MS + ideal),
      detail(outage, OUTAGE_MS + ideal, '<=1.2'),
    )
    emit('judge.outage_2s.lost', outage.lost, `max over ${ROUNDS} runs, goal=0`)
  } finally {
    await fake.close()
  }
}
