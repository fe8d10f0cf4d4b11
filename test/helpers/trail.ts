// Where the TRAIL traces are, and independent (reader-free) facts about them for the tests to compare against.
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** `../shared/datasets/trail` beside the repo, or `TRAIL_DIR`. May be absent (plain clone). */
export const TRAIL_DIR =
  process.env.TRAIL_DIR ?? fileURLToPath(new URL('../../../shared/datasets/trail', import.meta.url))
export const HAS_TRAIL = existsSync(join(TRAIL_DIR, 'GAIA'))

/** The small real TRAIL traces copied into the repo (see NOTICE.md there). */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/trail', import.meta.url))

export function traceFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f))
}

/** Every TRAIL trace file in the shared dataset (GAIA + SWE_Bench). */
export function sharedTrailFiles(): string[] {
  return [...traceFiles(join(TRAIL_DIR, 'GAIA')), ...traceFiles(join(TRAIL_DIR, 'SWE_Bench'))]
}

export interface RawTrailSpan {
  span_id: string
  parent_span_id: string | null
  span_name: string
  timestamp: string
  duration: string
  status_code: string
  span_attributes: Record<string, string>
  events: Array<{ Timestamp: string; Name: string; Attributes: Record<string, string> }>
  child_spans: RawTrailSpan[]
}

/** All raw spans by recursive walk over `child_spans` (duplicates included). */
export function rawSpans(doc: { spans: RawTrailSpan[] }): RawTrailSpan[] {
  const out: RawTrailSpan[] = []
  const walk = (s: RawTrailSpan) => {
    out.push(s)
    s.child_spans.forEach(walk)
  }
  doc.spans.forEach(walk)
  return out
}
