// What a replay miss says: which test, which request, what changed against the closest request that test recorded
// (field by field: the system prompt line that changed, not two walls of JSON), and how to record again.
import { relative } from 'node:path'
import type { StoredRequest } from './request'

/** A request of a test that has no recorded response, in replay mode (or the file is missing). */
export class RecordingMissError extends Error {
  override name = 'RecordingMissError'
}

const MAX_LINES = 8
const MAX_VALUE = 140

/** Leaf values of a request by path (`body.messages[0].content`), for a field-level comparison. */
function flatten(value: unknown, path: string, out: Map<string, string>): Map<string, string> {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v] as const) : Object.entries(value)
    if (entries.length === 0) out.set(path, JSON.stringify(value))
    for (const [k, v] of entries) flatten(v, Array.isArray(value) ? `${path}${k}` : path ? `${path}.${k}` : k, out)
  } else out.set(path, JSON.stringify(value) ?? 'undefined')
  return out
}

function cut(text: string): string {
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text
}

/** The changed, added and removed fields from `recorded` to `sent`, as `- path: old` / `+ path: new` lines. */
export function requestDiff(recorded: StoredRequest, sent: StoredRequest): { lines: string[]; changes: number } {
  const a = flatten(recorded, '', new Map())
  const b = flatten(sent, '', new Map())
  const lines: string[] = []
  let changes = 0
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    const before = a.get(path)
    const after = b.get(path)
    if (before === after) continue
    changes++
    if (lines.length >= MAX_LINES * 2) continue
    if (before !== undefined) lines.push(`  - ${path}: ${cut(before)}`)
    if (after !== undefined) lines.push(`  + ${path}: ${cut(after)}`)
  }
  if (changes > MAX_LINES) lines.push(`  … and ${changes - MAX_LINES} more changed field(s)`)
  return { lines, changes }
}

/** The recorded request of the test closest to `sent`: same method and URL path first, then fewest changed fields. */
function closest(sent: StoredRequest, recorded: readonly StoredRequest[]): StoredRequest | undefined {
  const path = (url: string) => url.replace(/\?.*$/, '')
  let best: { r: StoredRequest; score: number } | undefined
  for (const r of recorded) {
    const score =
      (r.method === sent.method ? 0 : 1e6) + (path(r.url) === path(sent.url) ? 0 : 1e5) + requestDiff(r, sent).changes
    if (!best || score < best.score) best = { r, score }
  }
  return best?.r
}

/**
 * The message of a replay miss: the test, the request, the closest recorded request of that test and the fields
 * that differ, then how to record again.
 *
 * @example
 * throw new RecordingMissError(missMessage({ test, file, sent, recorded, because: 'CI' }))
 */
export function missMessage(miss: {
  test: string
  file: string
  sent: StoredRequest
  /** Requests this test recorded (all of them, hits included). */
  recorded: readonly StoredRequest[]
  /** Same request recorded fewer times than it is now made. */
  repeats?: number
  because: string
}): string {
  const file = relative(process.cwd(), miss.file) || miss.file
  const head = `agent recording: no recorded response for ${miss.sent.method} ${miss.sent.url} in test "${miss.test}" (${file}; ${miss.because})`
  const near = closest(miss.sent, miss.recorded)
  let detail: string
  if (miss.repeats !== undefined)
    detail = `This test recorded this exact request ${miss.repeats} time(s); it is now made once more (a loop or a retry ran further than when it was recorded).`
  else if (!near)
    detail = 'This test has no recorded request at all (never recorded, or recorded under another test name).'
  else {
    const { lines } = requestDiff(near, miss.sent)
    detail = `What changed against the closest request this test recorded (- recorded, + now):\n${lines.join('\n')}`
  }
  const how =
    'To record again, run this test where its model and tools are reachable: AGENT_VERDICT_MODE=record (re-records everything), or AGENT_VERDICT_MODE=auto (records only what is missing); `vitest -u` also records misses and prunes unused calls. Commit the updated file under __recordings__/.'
  return `${head}\n${detail}\n${how}`
}
