// One "test worker" of bench/workers.ts: a separate process with its own judge (and its own
// per-process limiter), joined to the run's coordinator through AGENT_VERDICT_COORDINATOR.
import * as z from 'zod'
import { callJudge } from '../src/judges/judge-call'
import { openaiJudge } from '../src/judges/openai'

const Schema = z.object({ reasoning: z.string(), score: z.number().int().min(1).max(5) })
const [baseURL, worker, count] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])]
const judge = openaiJudge({ model: 'fake-judge', baseURL })

const request = (i: number) => ({
  metric: 'bench-workers',
  promptVersion: 'bench',
  system: 'You judge one answer. Reason first, then score 1-5.',
  content: [{ type: 'text' as const, text: `Worker ${worker}, assertion ${i}: the total due is $1,296.00.` }],
  schema: Schema,
  schemaName: 'verdict',
})

process.on('message', async (msg) => {
  if (msg !== 'go') return
  const results = await Promise.all(Array.from({ length: count }, (_, i) => callJudge(judge, request(i))))
  process.send!({ lost: results.filter((r) => r.status !== 'ok').length }, () => process.exit(0))
})
// Warm-up (client, sockets, coordinator connection, JIT) before the timed part, as in judge-scheduling.
await Promise.all(Array.from({ length: 8 }, (_, i) => callJudge(judge, request(-1 - i))))
process.send!('ready')
