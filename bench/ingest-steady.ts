// One trace size's steady-state ingest cost, in a process of its own:
// `node --import tsx bench/ingest-steady.ts 10000 [--retain | --floor]`.
// Prints one JSON line (SteadyResult). Without a flag each trace is dropped after detect(); with --retain a
// round keeps every trace it read until it ends, as `loadTraces()` does. With
// --floor the rounds alternate between the ingest and the floor (see `floorOnce`), so both see the same
// machine and heap, and the result adds the floor and the ingest's cost above it.
import { performance, PerformanceObserver } from 'node:perf_hooks'
import { detect } from '../src/metrics/detectors/index'
import { parseTrace } from '../src/trace/parse'
import { syntheticOtlpTrace } from './synthetic-otlp'

/** Spans ingested per timed round, whatever the trace size: 100 traces of 1k, 10 of 10k, 1 of 100k. */
export const SPANS_PER_ROUND = 100_000
/** Timed rounds; the figure is their median. */
export const ROUNDS = 7
/** Untimed spans first, so V8 has optimized the reader and detectors (at least 3 traces, whatever the size). */
const WARMUP_SPANS = 30_000

/** The result line a child prints; the floor fields only with --floor. */
export interface SteadyResult {
  spans: number
  nsPerSpan: number
  gcShare: number
  rounds: number[]
  /** ns per span of the floor alone. */
  floorNsPerSpan?: number
  floorGcShare?: number
  /** Median over rounds of (ingest − floor) ns per span: the cost of what the library does beyond materializing the spans. */
  aboveFloorNsPerSpan?: number
}

type Mode = 'drop' | 'retain' | 'floor'

function ingestOnce(text: string): unknown {
  const trace = parseTrace(text)
  detect(trace)
  return trace
}

/**
 * Where each span's text sits in the synthetic request. The generator writes it with JSON.stringify, so each
 * span's own JSON.stringify appears verbatim, in order; found once, outside the timing.
 */
function spanRanges(text: string): number[] {
  const ranges: number[] = []
  let at = 0
  for (const scope of JSON.parse(text).resourceSpans[0].scopeSpans) {
    for (const span of scope.spans) {
      const json = JSON.stringify(span)
      const start = text.indexOf(json, at)
      if (start < 0) throw new Error('ingest-steady: a span of the synthetic trace is not where JSON.stringify puts it')
      ranges.push(start, start + json.length)
      at = start + json.length
    }
  }
  return ranges
}

/**
 * The floor: JSON.parse of each span's text, every result kept until the trace is dropped. This is the least
 * any reader that turns the text into one object per span must do (the library's reader runs the same parse
 * per span, keeps a normalized span of about the same size instead of the raw object, builds the tree and
 * runs the detectors). Its scaling with trace size is the runtime's: allocation, the collector, the caches.
 */
function floorOnce(text: string, ranges: number[]): unknown {
  const out: unknown[] = new Array(ranges.length >> 1)
  for (let i = 0; i < ranges.length; i += 2) out[i >> 1] = JSON.parse(text.slice(ranges[i], ranges[i + 1]))
  return out
}

async function main(spans: number, mode: Mode): Promise<SteadyResult> {
  const text = syntheticOtlpTrace(spans)
  const ranges = mode === 'floor' ? spanRanges(text) : []
  const pauses: Array<[number, number]> = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.duration])
  })
  observer.observe({ entryTypes: ['gc'] })
  const perRound = SPANS_PER_ROUND / spans
  for (let i = 0; i < Math.max(3, WARMUP_SPANS / spans); i++) {
    ingestOnce(text)
    if (mode === 'floor') floorOnce(text, ranges)
  }
  const timed = (once: () => unknown): [number, number] => {
    const kept: unknown[] = []
    const start = performance.now()
    for (let i = 0; i < perRound; i++) {
      const result = once()
      if (mode === 'retain') kept.push(result)
    }
    return [start, performance.now()]
  }
  const rounds: Array<[number, number]> = []
  const floorRounds: Array<[number, number]> = []
  for (let r = 0; r < ROUNDS; r++) {
    if (mode !== 'floor') {
      rounds.push(timed(() => ingestOnce(text)))
      continue
    }
    // Alternate which goes first, so drift and the other side's garbage fall on both alike.
    if (r % 2 === 0) {
      rounds.push(timed(() => ingestOnce(text)))
      floorRounds.push(timed(() => floorOnce(text, ranges)))
    } else {
      floorRounds.push(timed(() => floorOnce(text, ranges)))
      rounds.push(timed(() => ingestOnce(text)))
    }
  }
  // GC entries are delivered asynchronously: let them arrive before reading them.
  await new Promise((done) => setTimeout(done, 50))
  observer.disconnect()
  const nsOf = (rs: Array<[number, number]>) => rs.map(([a, b]) => ((b - a) * 1e6) / SPANS_PER_ROUND)
  const gcOf = (rs: Array<[number, number]>) =>
    rs.map(([a, b]) => pauses.reduce((ms, [t, d]) => (t >= a && t < b ? ms + d : ms), 0) / (b - a))
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]
  const ns = nsOf(rounds)
  const result: SteadyResult = {
    spans,
    nsPerSpan: median(ns),
    gcShare: median(gcOf(rounds)),
    rounds: ns.map(Math.round),
  }
  if (mode === 'floor') {
    const floor = nsOf(floorRounds)
    result.floorNsPerSpan = median(floor)
    result.floorGcShare = median(gcOf(floorRounds))
    result.aboveFloorNsPerSpan = median(ns.map((x, i) => x - floor[i]))
  }
  return result
}

const size = Number(process.argv[2])
if (process.argv[1]?.endsWith('ingest-steady.ts')) {
  if (!Number.isInteger(size) || size < 1 || SPANS_PER_ROUND % size !== 0) {
    process.stderr.write(
      `usage: node --import tsx bench/ingest-steady.ts <spans> [--retain | --floor], <spans> a divisor of ${SPANS_PER_ROUND}\n`,
    )
    process.exitCode = 2
  } else {
    const mode: Mode = process.argv.includes('--retain')
      ? 'retain'
      : process.argv.includes('--floor')
        ? 'floor'
        : 'drop'
    process.stdout.write(`${JSON.stringify(await main(size, mode))}\n`)
  }
}
