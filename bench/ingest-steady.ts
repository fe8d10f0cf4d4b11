// One trace size's steady-state ingest cost, in a process of its own: `node --import tsx bench/ingest-steady.ts 10000 [--retain]`.
// Prints one JSON line: { spans, nsPerSpan, gcShare, rounds }. With --retain a round keeps every trace it
// read until it ends, as `agent-verdict diagnose` and `loadTraces()` do; without, each is dropped after detect().
import { performance, PerformanceObserver } from 'node:perf_hooks'
import { detect } from '../src/metrics/detectors/index'
import { parseTrace } from '../src/trace/parse'
import type { Trace } from '../src/trace/trace'
import { syntheticOtlpTrace } from './synthetic-otlp'

/** Spans ingested per timed round, whatever the trace size: 100 traces of 1k, 10 of 10k, 1 of 100k. */
export const SPANS_PER_ROUND = 100_000
/** Timed rounds; the figure is their median. */
export const ROUNDS = 7
/** Untimed spans first, so V8 has optimized the reader and detectors (at least 3 traces, whatever the size). */
const WARMUP_SPANS = 30_000

/** The result line a child prints. */
export interface SteadyResult {
  spans: number
  nsPerSpan: number
  gcShare: number
  rounds: number[]
}

async function main(spans: number, retain: boolean): Promise<SteadyResult> {
  const text = syntheticOtlpTrace(spans)
  const pauses: Array<[number, number]> = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.duration])
  })
  observer.observe({ entryTypes: ['gc'] })
  for (let i = 0; i < Math.max(3, WARMUP_SPANS / spans); i++) detect(parseTrace(text))
  const rounds: Array<[number, number]> = []
  for (let r = 0; r < ROUNDS; r++) {
    const kept: Trace[] = []
    const start = performance.now()
    for (let i = 0; i < SPANS_PER_ROUND / spans; i++) {
      const trace = parseTrace(text)
      detect(trace)
      if (retain) kept.push(trace)
    }
    rounds.push([start, performance.now()])
  }
  // GC entries are delivered asynchronously: let them arrive before reading them.
  await new Promise((done) => setTimeout(done, 50))
  observer.disconnect()
  const ns = rounds.map(([a, b]) => ((b - a) * 1e6) / SPANS_PER_ROUND)
  const gc = rounds.map(([a, b]) => pauses.reduce((ms, [t, d]) => (t >= a && t < b ? ms + d : ms), 0) / (b - a))
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]
  return { spans, nsPerSpan: median(ns), gcShare: median(gc), rounds: ns.map(Math.round) }
}

const size = Number(process.argv[2])
if (process.argv[1]?.endsWith('ingest-steady.ts')) {
  if (!Number.isInteger(size) || size < 1 || SPANS_PER_ROUND % size !== 0) {
    process.stderr.write(`usage: node --import tsx bench/ingest-steady.ts <spans> [--retain], <spans> a divisor of ${SPANS_PER_ROUND}\n`)
    process.exitCode = 2
  } else {
    process.stdout.write(`${JSON.stringify(await main(size, process.argv.includes('--retain')))}\n`)
  }
}
