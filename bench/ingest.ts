// Ingest cost: parse + normalize + tree + detectors, relative to a bare JSON.parse of the same text.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance, PerformanceObserver } from 'node:perf_hooks'
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { detect } from '../src/metrics/detectors/index'
import { parseTrace } from '../src/trace/parse'
import type { Emit } from './emit'
import { SPANS_PER_ROUND, type SteadyResult } from './ingest-steady'
import { syntheticOtlpTrace } from './synthetic-otlp'

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)))
const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))
const TRAIL_DIR = process.env.TRAIL_DIR ?? resolve(REPO, '../shared/datasets/trail')
/**
 * Rounds per TRAIL trace; each round times both sides back to back, alternating which goes first. 21, not
 * 7: with 7 the median of one build moved by about ±0.06 between runs on a 2-core VM; 21 narrows that.
 */
const ROUNDS = 21
/**
 * Untimed passes over every trace first, so V8 has optimized the reader and detectors before timing: after
 * one pass about 70 functions were still compiled during the timed rounds, after three about 40 (steady
 * state is what a process ingesting a directory of traces runs in; JSON.parse is built in and needs none).
 */
const WARMUP_PASSES = 3

function ingest(text: string): number {
  return detect(parseTrace(text)).length
}

function time(fn: () => unknown): number {
  const start = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - start)
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]
}

function trailFiles(): string[] {
  const files: string[] = []
  for (const split of ['GAIA', 'SWE_Bench']) {
    const dir = join(TRAIL_DIR, split)
    if (!existsSync(dir)) continue
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.json')) files.push(join(dir, f))
  }
  return files
}

/** Per-trace ratio of ingest time to JSON.parse time (median over rounds), then median and p90 over traces. */
export function trailRatio(emit: Emit): void {
  const files = trailFiles()
  if (files.length === 0) {
    emit('ingest.ratio_vs_json_parse', 'skipped', `no TRAIL traces at ${TRAIL_DIR} (set TRAIL_DIR)`)
    return
  }
  const texts = files.map((f) => readFileSync(f, 'utf8'))
  for (let pass = 0; pass < WARMUP_PASSES; pass++) for (const t of texts) ingest(t)
  const parseNs: number[][] = texts.map(() => [])
  const ingestNs: number[][] = texts.map(() => [])
  // The reader alone (text → Trace, no detectors): where the time above the parse goes.
  const readNs: number[][] = texts.map(() => [])
  for (let r = 0; r < ROUNDS; r++) {
    texts.forEach((text, i) => {
      // Interleaved and alternating order, so drift and GC debt fall on both sides alike.
      if ((r + i) % 2 === 0) {
        parseNs[i].push(time(() => JSON.parse(text)))
        ingestNs[i].push(time(() => ingest(text)))
        readNs[i].push(time(() => parseTrace(text)))
      } else {
        readNs[i].push(time(() => parseTrace(text)))
        ingestNs[i].push(time(() => ingest(text)))
        parseNs[i].push(time(() => JSON.parse(text)))
      }
    })
  }
  const ratios = texts.map((_, i) => median(ingestNs[i]) / median(parseNs[i]))
  const readRatios = texts.map((_, i) => median(readNs[i]) / median(parseNs[i]))
  const total = (ns: number[][]) => ns.reduce((sum, xs) => sum + median(xs), 0)
  emit(
    'ingest.ratio_vs_json_parse',
    median(ratios),
    `p90=${quantile(ratios, 0.9).toFixed(2)} max=${Math.max(...ratios).toFixed(2)} traces=${texts.length} goal<=1.25; ` +
      `reader only (no detectors) ${median(readRatios).toFixed(2)}; all traces' time summed: ingest ${(total(ingestNs) / total(parseNs)).toFixed(2)}, reader ${(total(readNs) / total(parseNs)).toFixed(2)}`,
  )
}

/** A full GC between timed runs of the isolated protocol; `gc` is fetched once, not a new context per call. */
const collectGarbage =
  (globalThis as { gc?: () => void }).gc ?? (v8.setFlagsFromString('--expose-gc'), runInNewContext('gc') as () => void)

/** GC pauses V8 reports (main-thread time), collected to tell the collector's share of each timed run. */
function watchGc(): { pausedMs: (from: number, to: number) => number; stop: () => void } {
  const pauses: Array<[start: number, ms: number]> = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.duration])
  })
  observer.observe({ entryTypes: ['gc'] })
  return {
    pausedMs: (from, to) =>
      pauses.reduce((ms, [start, d]) => (start >= from && start < to ? ms + Math.min(d, to - start) : ms), 0),
    stop: () => observer.disconnect(),
  }
}

const SIZES = [
  { label: '1k', spans: 1_000, perRound: 9 },
  { label: '10k', spans: 10_000, perRound: 3 },
  { label: '100k', spans: 100_000, perRound: 1 },
]

const spread = (xs: number[]) => Math.max(...xs) / Math.min(...xs)

/** One size's steady-state figure, from a process of its own; `flag` is `--retain`, `--floor` or none. */
function steady(spans: number, flag?: '--retain' | '--floor'): SteadyResult {
  const args = [...process.execArgv, join(BENCH_DIR, 'ingest-steady.ts'), String(spans), ...(flag ? [flag] : [])]
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 })
  if (child.status !== 0)
    throw new Error(
      `ingest-steady ${spans}${flag ? ` ${flag}` : ''} exited with ${child.status}: ${child.stderr.trim()}`,
    )
  return JSON.parse(child.stdout.trim().split('\n').pop()!) as SteadyResult
}

/**
 * ns per span of text → Trace + detectors on synthetic OTLP runs; flat across sizes means linear scaling.
 * Each size runs in a process of its own (`ingest-steady.ts`): after a warm-up it ingests 100k spans per
 * round back to back (100 traces of 1k, 10 of 10k, 1 of 100k) and the collector's pauses count where they
 * fall. The headline drops each trace after detect() (a test that checks one trace); `retained_spread`
 * keeps a round's traces (what `loadTraces()` does), so every size keeps 100k spans alive.
 * `floor.ns_per_span.spread` is the control: the same protocol for a per-span JSON.parse whose results are
 * kept, the least a reader building one object per span does; `above_floor_spread` is what the library adds.
 */
function perSpanSteady(emit: Emit): void {
  const results = SIZES.map((s) => {
    const r = steady(s.spans)
    emit(
      `ingest.ns_per_span.${s.label}`,
      Math.round(r.nsPerSpan),
      `gc=${Math.round(100 * r.gcShare)}% rounds=${r.rounds.join(',')} (ns/span, ${SPANS_PER_ROUND} spans each, traces dropped after detect)`,
    )
    return r.nsPerSpan
  })
  emit(
    'ingest.ns_per_span.spread',
    spread(results),
    'max/min over 1k..100k, steady state, one process per size (goal ≤ 1.2, i.e. within ±20%)',
  )
  const retained = SIZES.map((s) => ({ label: s.label, r: steady(s.spans, '--retain') }))
  const detail = retained
    .map(({ label, r }) => `${label}=${Math.round(r.nsPerSpan)} (gc=${Math.round(100 * r.gcShare)}%)`)
    .join(' ')
  emit(
    'ingest.ns_per_span.retained_spread',
    spread(retained.map(({ r }) => r.nsPerSpan)),
    `${detail} (each round keeps its traces, as loadTraces() does)`,
  )
  // The control: per-span JSON.parse of the same texts, results kept for the trace's life, in rounds that
  // alternate with the ingest's in one process. Its spread is the runtime's own (allocation, collector, caches).
  const floored = SIZES.map((s) => ({ label: s.label, r: steady(s.spans, '--floor') }))
  const floorDetail = floored
    .map(({ label, r }) => `${label}=${Math.round(r.floorNsPerSpan!)} (gc=${Math.round(100 * r.floorGcShare!)}%)`)
    .join(' ')
  emit(
    'ingest.floor.ns_per_span.spread',
    spread(floored.map(({ r }) => r.floorNsPerSpan!)),
    `${floorDetail} (JSON.parse of each span's text, kept until the trace is dropped: the least any reader that builds one object per span does)`,
  )
  const aboveDetail = floored.map(({ label, r }) => `${label}=${Math.round(r.aboveFloorNsPerSpan!)}`).join(' ')
  emit(
    'ingest.ns_per_span.above_floor_spread',
    spread(floored.map(({ r }) => r.aboveFloorNsPerSpan!)),
    `${aboveDetail} (ingest minus floor per round, median; what normalizing, the tree and the detectors add)`,
  )
}

/**
 * The same sizes measured the way earlier runs of this bench did: one process, sizes interleaved, a full GC
 * before every timed ingest. That GC leaves the caches cold for the next run, which costs a 10 ms 1k run
 * far more than a 2 s 100k one, so this spread flatters the code; kept to compare with earlier figures.
 */
async function perSpanIsolated(emit: Emit): Promise<void> {
  const sizes = SIZES.map((s) => ({ ...s, text: syntheticOtlpTrace(s.spans), runs: [] as Array<[number, number]> }))
  for (const s of sizes) ingest(s.text)
  const gcWatch = watchGc()
  // Rounds interleave the sizes, so a busy machine slows all of them alike instead of one.
  for (let round = 0; round < 7; round++) {
    for (const s of sizes) {
      for (let i = 0; i < s.perRound; i++) {
        collectGarbage()
        const start = performance.now()
        ingest(s.text)
        s.runs.push([start, performance.now()])
      }
    }
  }
  // GC entries are delivered asynchronously: let them arrive before reading them.
  await new Promise((done) => setTimeout(done, 50))
  gcWatch.stop()
  const perSize = sizes.map((s) => {
    const ns = (ms: number) => (ms * 1e6) / s.spans
    return {
      label: s.label,
      nsPerSpan: median(s.runs.map(([a, b]) => ns(b - a))),
      withoutGc: median(s.runs.map(([a, b]) => ns(b - a - gcWatch.pausedMs(a, b)))),
    }
  })
  const detail = perSize.map((r) => `${r.label}=${Math.round(r.nsPerSpan)}`).join(' ')
  emit(
    'ingest.ns_per_span.isolated_spread',
    spread(perSize.map((r) => r.nsPerSpan)),
    `${detail} without_gc_spread=${spread(perSize.map((r) => r.withoutGc)).toFixed(2)} (full GC before each run)`,
  )
}

/**
 * Bench module `ingest`: `ingest.ratio_vs_json_parse` over the TRAIL traces, `ingest.ns_per_span.*` (steady
 * state, a process per size, traces dropped), `ingest.ns_per_span.retained_spread` (traces kept),
 * `ingest.floor.ns_per_span.spread` and `ingest.ns_per_span.above_floor_spread` (the runtime's floor and the
 * library's cost above it) and `ingest.ns_per_span.isolated_spread` (the earlier protocol).
 *
 * @example
 * await run((key, value, detail) => console.log(key, value, detail ?? ''))
 */
export async function run(emit: Emit): Promise<void> {
  trailRatio(emit)
  perSpanSteady(emit)
  await perSpanIsolated(emit)
}
