// Ingest cost: parse + normalize + tree + detectors, relative to a bare JSON.parse of the same text.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { detect } from '../src/metrics/detectors/index'
import { parseTrace } from '../src/trace/parse'
import type { Emit } from './emit'
import { syntheticOtlpTrace } from './synthetic-otlp'

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)))
const TRAIL_DIR = process.env.TRAIL_DIR ?? resolve(REPO, '../shared/datasets/trail')
/** Rounds per TRAIL trace; each round times both sides back to back, alternating which goes first. */
const ROUNDS = 7

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
function trailRatio(emit: Emit): void {
  const files = trailFiles()
  if (files.length === 0) {
    emit('ingest.ratio_vs_json_parse', 'skipped', `no TRAIL traces at ${TRAIL_DIR} (set TRAIL_DIR)`)
    return
  }
  const texts = files.map((f) => readFileSync(f, 'utf8'))
  for (const t of texts) ingest(t) // warm up the JIT on every shape before timing
  const parseNs: number[][] = texts.map(() => [])
  const ingestNs: number[][] = texts.map(() => [])
  for (let r = 0; r < ROUNDS; r++) {
    texts.forEach((text, i) => {
      // Interleaved and alternating order, so drift and GC debt fall on both sides alike.
      if ((r + i) % 2 === 0) {
        parseNs[i].push(time(() => JSON.parse(text)))
        ingestNs[i].push(time(() => ingest(text)))
      } else {
        ingestNs[i].push(time(() => ingest(text)))
        parseNs[i].push(time(() => JSON.parse(text)))
      }
    })
  }
  const ratios = texts.map((_, i) => median(ingestNs[i]) / median(parseNs[i]))
  emit('ingest.ratio_vs_json_parse', median(ratios), `p90=${quantile(ratios, 0.9).toFixed(2)} max=${Math.max(...ratios).toFixed(2)} traces=${texts.length}`)
}

/** A full GC between timed runs, so one run's garbage is not billed to the next (and to the next size). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as (() => void) | undefined
  gc?.()
}

/** ns per span of text → Trace + detectors on synthetic OTLP runs; flat across sizes means linear scaling. */
function perSpan(emit: Emit): void {
  const sizes = [
    { label: '1k', spans: 1_000, perRound: 9 },
    { label: '10k', spans: 10_000, perRound: 3 },
    { label: '100k', spans: 100_000, perRound: 1 },
  ].map((s) => ({ ...s, text: syntheticOtlpTrace(s.spans), samples: [] as number[], parseSamples: [] as number[] }))
  for (const s of sizes) ingest(s.text)
  // Rounds interleave the sizes, so a busy machine slows all of them alike instead of one.
  for (let round = 0; round < 7; round++) {
    for (const s of sizes) {
      for (let i = 0; i < s.perRound; i++) {
        collectGarbage()
        s.samples.push(time(() => ingest(s.text)) / s.spans)
        // The bare JSON.parse of the same text, for context: it does not scale flat either (cache, old-space GC).
        collectGarbage()
        s.parseSamples.push(time(() => JSON.parse(s.text)) / s.spans)
      }
    }
  }
  const results = sizes.map((s) => {
    const nsPerSpan = median(s.samples)
    emit(`ingest.ns_per_span.${s.label}`, Math.round(nsPerSpan), `bytes=${s.text.length} runs=${s.samples.length} json_parse_ns_per_span=${Math.round(median(s.parseSamples))}`)
    return nsPerSpan
  })
  emit('ingest.ns_per_span.spread', Math.max(...results) / Math.min(...results), 'max/min over 1k..100k (goal ≤ 1.2, i.e. within ±20%)')
}

/**
 * Bench module `ingest`: `ingest.ratio_vs_json_parse` over the TRAIL traces and `ingest.ns_per_span.*`.
 *
 * @example
 * await run((key, value, detail) => console.log(key, value, detail ?? ''))
 */
export async function run(emit: Emit): Promise<void> {
  trailRatio(emit)
  perSpan(emit)
}
