// Real TRAIL traces for detector tests (the shared dataset, read-only; see test/helpers/trail.ts for where it is).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseTrace } from '../../../src/trace/parse'
import type { Span } from '../../../src/trace/span'
import type { Trace } from '../../../src/trace/trace'
import { HAS_TRAIL, TRAIL_DIR } from '../../helpers/trail'

export { TRAIL_DIR }
export const HAVE_TRAIL = HAS_TRAIL

/** Loads one TRAIL trace by split and trace-id prefix. */
export function trailTrace(split: 'GAIA' | 'SWE_Bench', idPrefix: string): Trace {
  const dir = join(TRAIL_DIR, split)
  const file = readdirSync(dir).find((f) => f.startsWith(idPrefix))
  if (!file) throw new Error(`no TRAIL trace ${idPrefix}* in ${dir}`)
  return parseTrace(readFileSync(join(dir, file), 'utf8'), join(dir, file))
}

let all: Trace[] | undefined
/** Every TRAIL trace of both splits (parsed once per test file). */
export function allTrailTraces(): Trace[] {
  all ??= (['GAIA', 'SWE_Bench'] as const).flatMap((split) =>
    readdirSync(join(TRAIL_DIR, split))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => parseTrace(readFileSync(join(TRAIL_DIR, split, f), 'utf8'), join(TRAIL_DIR, split, f))),
  )
  return all
}

/** Everything a span says as text: where a finding's evidence must be found verbatim. */
export function spanText(span: Span): string {
  const parts: string[] = [span.name, span.statusMessage]
  for (const e of span.events) for (const v of Object.values(e.attributes)) parts.push(String(v))
  for (const v of Object.values(span.attributes)) parts.push(typeof v === 'string' ? v : JSON.stringify(v))
  for (const v of [span.input, span.output, span.toolArgs]) {
    if (v === undefined) continue
    parts.push(typeof v === 'string' ? v : JSON.stringify(v))
    if (Array.isArray(v))
      for (const m of v)
        if (m && typeof m === 'object')
          parts.push(...Object.values(m).map((x) => (typeof x === 'string' ? x : JSON.stringify(x))))
  }
  return parts.join('\n')
}

/** The exception type recorded on a span, if any. */
export function exceptionType(span: Span): string {
  const event = span.events.find((e) => e.name === 'exception')
  return String(event?.attributes['exception.type'] ?? '')
}
