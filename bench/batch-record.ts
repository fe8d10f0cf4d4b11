// Batch record: 200 judge assertions recorded through the batch path (collect → OpenAI Batch API →
// apply) over the real openai SDK, with msw standing in for the API and one scripted judge. Figures:
// live calls in the batch path (must be 0), verdicts lost (must be 0), verdicts identical to a live
// record of the same requests; then again with every 10th batch item failed (they fall back to live).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { withCassette } from '../src/cassette/cassette-judge'
import { readCassette } from '../src/cassette/store'
import { applyingHook, collectingHook } from '../src/judges/batch/hook'
import { readFallbacks, readBatchQueue } from '../src/judges/batch/queue'
import { submitBatch, waitBatch } from '../src/judges/batch/run'
import { openaiJudge } from '../src/judges/openai'
import type { Judge } from '../src/judges/types'
import { verdictRequest } from '../test/cassette/helpers'
import { fakeOpenAIBatchApi } from '../test/helpers/openai-batch-api'
import type { Emit } from './emit'

const N = 200
const API = 'https://api.openai.bench/v1'
const requests = () =>
  Array.from({ length: N }, (_, i) => verdictRequest(`assertion ${i}: the agent answered ${i * 3} for case ${i % 17}`))

async function runSuite(judge: Judge, file: string, options: Partial<Parameters<typeof withCassette>[1]>) {
  const cassette = withCassette(judge, { file, ...options })
  const settled = await Promise.allSettled(requests().map((r) => cassette.evaluate(r)))
  await cassette.flush()
  return settled
}

export async function run(emit: Emit): Promise<void> {
  const api = fakeOpenAIBatchApi(API)
  const server = setupServer(...api.handlers)
  server.listen({
    onUnhandledRequest: (r, print) => {
      if (!r.url.startsWith('data:')) print.error()
    },
  })
  const dir = await mkdtemp(join(tmpdir(), 'bench-batch-'))
  try {
    const client = new OpenAI({ apiKey: 'sk-bench-batch', baseURL: API, maxRetries: 0 })
    const judge = openaiJudge({ model: 'gpt-4.1', client })
    const providers = { openai: () => client }

    const liveFile = join(dir, 'live.json')
    await runSuite(judge, liveFile, { mode: 'record' })
    const live = (await readCassette(liveFile)).entries

    for (const failEvery of [0, 10]) {
      const batchDir = join(dir, `batch-${failEvery}`)
      const file = join(batchDir, 'cassette.json')
      api.liveCalls = 0
      api.failIds.clear()
      await runSuite(judge, file, { mode: 'auto', batch: collectingHook(batchDir) })
      const collectCalls = api.liveCalls
      const items = await readBatchQueue(batchDir)
      if (failEvery)
        items.forEach((item, i) => {
          if (i % failEvery === 0) api.failIds.add(item.key)
        })
      await submitBatch(batchDir, providers)
      await waitBatch(batchDir, providers, { pollMs: 0 })
      const applied = await runSuite(judge, file, { mode: 'auto', batch: applyingHook(batchDir) })
      const fallbacks = (await readFallbacks(batchDir)).length
      const entries = (await readCassette(file)).entries
      const lost = applied.filter((s) => s.status !== 'fulfilled').length + N - Object.keys(entries).length
      const identical = Object.keys(live).filter(
        (k) => entries[k] && JSON.stringify(entries[k].output) === JSON.stringify(live[k].output),
      ).length
      const detail = `assertions=${N} queued=${items.length} collect_live_calls=${collectCalls} apply_live_calls=${api.liveCalls} fallbacks=${fallbacks} identical_to_live=${identical}/${N}`
      if (failEvery === 0) {
        emit('batch.record', collectCalls + api.liveCalls, `live calls in the batch path; lost=${lost} ${detail}`)
        emit('batch.record.lost', lost, detail)
      } else {
        emit('batch.record.failed_items.lost', lost, `every ${failEvery}th batch item failed → judged live; ${detail}`)
      }
    }
  } finally {
    server.close()
    await rm(dir, { recursive: true, force: true })
  }
}
