import { mkdir, open, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import * as z from 'zod'
import { inexactNumber } from '../judges/exact-numbers'
import { JudgeUsageSchema } from '../judges/usage'
import { CassetteError, CassetteFormatError, displayPath } from './errors'
import { removeStaleTemps, writeAtomic } from '../files/atomic'
import { withFileLock, type FileLockOptions } from './lock'

// The schemas are built on first use, not when the module loads: zod 4 builds a schema with some cost (these
// took ~7 ms), and a run that calls a live judge, or records its first cassette, reads none before its first
// judge request goes out (decision 0031).
function buildCassetteSchemas() {
  /**
   * What the matcher made of a recorded judge reply, for people reviewing the cassette: the metric,
   * outcome, score and threshold on the metric's own scale (`4/5`, `min 4`) and the reason.
   */
  const verdict = z.object({
    metric: z.string(),
    outcome: z.enum(['pass', 'fail', 'unjudgeable']),
    score: z.string().nullable(),
    threshold: z.string().nullable(),
    reason: z.string(),
  })
  /**
   * One recorded judge reply. `output`, `usage` and `costUsd` are what replay returns; `test`, `matcher`,
   * `span`, `judged` and `verdicts` are labels for review (never part of the key). No credentials, and
   * no latency: it changes every run and would turn every re-record into a diff.
   */
  const entry = z.object({
    /** Full test name (`describe › test`), when recorded by a matcher. */
    test: z.string().optional(),
    matcher: z.string().optional(),
    /** The judged span's positional id and name (`1.3 tool:lookup_order`), for span verdicts. */
    span: z.string().optional(),
    metric: z.string(),
    /** A short excerpt of the judged text. */
    judged: z.string().optional(),
    verdicts: z.array(verdict).optional(),
    provider: z.string(),
    model: z.string(),
    promptVersion: z.string(),
    output: z.json(),
    /**
     * Set when the judge gave no valid verdict for this request while recording (a malformed reply, a refusal):
     * replay gives the same unjudgeable outcome, and a record or auto run asks the judge again (decision 0043).
     * `output` is then null. `reason` is the scrubbed error message, never the request or its headers.
     */
    unjudgeable: z.object({ error: z.string(), reason: z.string() }).optional(),
    usage: JudgeUsageSchema,
    costUsd: z.number().nonnegative().nullable(),
    /**
     * The named Vitest projects (`test.projects`) whose runs used the entry, when the file runs in several: a
     * project's `-u` prunes only its own entries (decision 0043). Absent outside named projects. Not in the key.
     */
    projects: z.array(z.string()).optional(),
    recordedAt: z.iso.datetime(),
  })
  const key = z.string().regex(/^[0-9a-f]{64}$/, 'keys are sha256 hex')
  return {
    verdict,
    entry,
    /** A cassette in memory: entries by `cassetteKey`, whatever version the file had on disk. */
    file: z.object({ version: z.literal(CASSETTE_VERSION), entries: z.record(key, entry) }),
    /** Version 1 (agent-verdict ≤ 0.x): entries keyed by hash, with `latencyMs`, no labels. Read, never written. */
    v1: z.object({
      version: z.literal(1),
      entries: z.record(
        key,
        entry
          .omit({
            test: true,
            matcher: true,
            span: true,
            judged: true,
            verdicts: true,
            unjudgeable: true,
            projects: true,
          })
          .extend({
            latencyMs: z.number().nonnegative(),
          }),
      ),
    }),
    /** Version 2 on disk: one flat list, sorted by test › matcher › span › metric, each entry carrying its key. */
    v2: z.object({ version: z.literal(2), entries: z.array(entry.extend({ key })) }),
  }
}

type CassetteSchemas = ReturnType<typeof buildCassetteSchemas>
let schemas: CassetteSchemas | undefined

/**
 * The cassette file's zod schemas (`verdict`, `entry`, `file`, and the on-disk `v1` and `v2`), built once, on
 * first use.
 *
 * @example
 * cassetteSchemas().entry.parse(entry).recordedAt // '2026-03-18T09:30:00.000Z'
 */
export function cassetteSchemas(): CassetteSchemas {
  schemas ??= buildCassetteSchemas()
  return schemas
}

/** What the matcher made of a recorded judge reply (see {@link cassetteSchemas}). */
export type CassetteVerdict = z.infer<CassetteSchemas['verdict']>
/** One recorded judge reply (see {@link cassetteSchemas}). */
export type CassetteEntry = z.infer<CassetteSchemas['entry']>
/** A cassette in memory: entries by `cassetteKey`, whatever version the file had on disk. */
export type CassetteFile = z.infer<CassetteSchemas['file']>

/** The file format this version writes. Older ones are read and rewritten in it (see decision 0019). */
export const CASSETTE_VERSION = 2

const emptyCassette = (): CassetteFile => ({ version: CASSETTE_VERSION, entries: {} })

/**
 * Where a test file's verdicts live: `__verdicts__/<name>.json` beside it, like `__snapshots__`.
 *
 * @example
 * cassettePathFor('test/chart.test.ts') // 'test/__verdicts__/chart.test.ts.json'
 */
export function cassettePathFor(testFile: string): string {
  return join(dirname(testFile), '__verdicts__', `${basename(testFile)}.json`)
}

// Review order: who asked, what was concluded and about what, then the replay payload, the key last.
// Test, matcher and span share the first line and failing verdicts come first, so a flipped verdict's
// diff hunk shows the test it belongs to in its context lines.
const NAME_FIELDS = ['test', 'matcher', 'span'] as const
const FIELDS = [
  'verdicts',
  'judged',
  'metric',
  'provider',
  'model',
  'promptVersion',
  'unjudgeable',
  'output',
  'usage',
  'costUsd',
  'projects',
  'recordedAt',
  'key',
] as const
const OUTCOME_ORDER = { fail: 0, unjudgeable: 1, pass: 2 }

/** `1.10` after `1.9`: positional ids compare by their numbers. */
function compareSpan(a = '', b = ''): number {
  const pa = a.split(' ')[0].split('.')
  const pb = b.split(' ')[0].split('.')
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const d = Number(pa[i]) - Number(pb[i])
    if (d) return d
  }
  return pa.length - pb.length || compareText(a, b)
}

// Code-unit order, not localeCompare: the same bytes on every machine and locale.
const compareText = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The file's text (format version 2): one entry per recorded reply, grouped by test › matcher › span ›
 * metric; in each, the name on the first line, then one line per verdict (failing first) and per field
 * in a fixed order; a trailing newline. The same verdicts always give the same bytes, and a flipped
 * verdict changes a few adjacent lines whose diff context names the test, matcher and metric.
 *
 * @example
 * await writeFile(path, serializeCassette({ version: 2, entries }))
 */
export function serializeCassette(cassette: CassetteFile): string {
  const rows = Object.entries(cassette.entries).map(([key, e]) => ({ ...e, key }))
  rows.sort(
    (a, b) =>
      compareText(a.test, b.test) ||
      compareText(a.matcher, b.matcher) ||
      compareSpan(a.span, b.span) ||
      compareText(a.metric, b.metric) ||
      compareText(a.key, b.key),
  )
  const entries = rows.map((row) => {
    const name = NAME_FIELDS.filter((f) => row[f] !== undefined).map(
      (f) => `${JSON.stringify(f)}: ${JSON.stringify(row[f])}`,
    )
    const lines = name.length ? [`      ${name.join(', ')}`] : []
    for (const field of FIELDS) {
      const value =
        field === 'usage' ? { inputTokens: row.usage.inputTokens, outputTokens: row.usage.outputTokens } : row[field]
      if (value === undefined) continue
      if (field === 'verdicts') {
        const sorted = [...(value as CassetteVerdict[])].sort(
          (a, b) => OUTCOME_ORDER[a.outcome] - OUTCOME_ORDER[b.outcome] || compareText(a.metric, b.metric),
        )
        const list = sorted.map(
          (v) =>
            `        ${JSON.stringify({ metric: v.metric, outcome: v.outcome, score: v.score, threshold: v.threshold, reason: v.reason })}`,
        )
        lines.push(list.length ? `      "verdicts": [\n${list.join(',\n')}\n      ]` : '      "verdicts": []')
      } else {
        lines.push(`      ${JSON.stringify(field)}: ${JSON.stringify(value)}`)
      }
    }
    return `    {\n${lines.join(',\n')}\n    }`
  })
  const body = entries.length ? `[\n${entries.join(',\n')}\n  ]` : '[]'
  return `{\n  "version": ${CASSETTE_VERSION},\n  "entries": ${body}\n}\n`
}

/**
 * Reads and validates a cassette; a missing file is an empty cassette. A corrupt file throws a
 * {@link CassetteFormatError} naming the file and telling to delete or fix it.
 *
 * @example
 * const { entries } = await readCassette('test/__verdicts__/chart.test.ts.json')
 */
export async function readCassette(file: string): Promise<CassetteFile> {
  let text: string
  try {
    text = await readCassetteText(file)
  } catch (err) {
    if (err instanceof CassetteError) throw err
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return emptyCassette()
    const what =
      code === 'EISDIR' ? 'is a directory, not a cassette file' : `cannot be read (${code ?? (err as Error).message})`
    throw new CassetteError(
      `cassette ${displayPath(file)} ${what} — check its permissions, or delete it to re-record its verdicts`,
      { file, cause: err },
    )
  }
  return parseCassette(text, file)
}

/**
 * Largest cassette file read. A cassette holds a few KB per judged assertion, so even a suite of thousands stays
 * far below; a file past it is not a cassette (or was mangled), and reading it whole would fail inside the
 * runtime with an error that names neither the file nor its size.
 */
export const MAX_CASSETTE_BYTES = 64 * 1024 * 1024

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`

/**
 * A cassette file's text, refusing (by its size, before reading a byte) one over {@link MAX_CASSETTE_BYTES} with a
 * `CassetteError` that names the file, its size and what to do. Other read errors are thrown as they are.
 *
 * @example
 * parseCassette(await readCassetteText(path), path)
 */
export async function readCassetteText(file: string): Promise<string> {
  const handle = await open(file, 'r')
  try {
    const { size, isFile } = await handle.stat().then((s) => ({ size: s.size, isFile: s.isFile() }))
    if (isFile && size > MAX_CASSETTE_BYTES)
      throw new CassetteError(
        `cassette ${displayPath(file)} is ${mb(size)}, over the ${mb(MAX_CASSETTE_BYTES)} a cassette may be (a verdict takes a few KB), so it was not read: it is not a cassette or was mangled — delete it to re-record its verdicts, or restore it from version control`,
        { file },
      )
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}

/**
 * A cassette file's text (any format version this package ever wrote) in the in-memory form; throws a
 * {@link CassetteFormatError} naming `file` and what to do.
 *
 * @example
 * Object.keys(parseCassette(readFileSync(path, 'utf8'), path).entries).length // recorded replies
 */
export function parseCassette(text: string, file: string): CassetteFile {
  const fix = `delete it to re-record its verdicts, or fix it${text.includes('<<<<<<<') ? ' (it has unresolved git merge conflict markers)' : ''}`
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new CassetteFormatError(
      `cassette ${displayPath(file)} is not valid JSON (${(err as Error).message}) — ${fix}`,
      { file, cause: err },
    )
  }
  // A number JSON.parse would round (`0.99999999999999999` is 1) would replay a score the file does not say.
  const rounded = inexactNumber(text)
  if (rounded !== undefined) {
    const line = text.slice(0, rounded.at).split('\n').length
    const key = /"key":\s*"([0-9a-f]{12})/.exec(text.slice(rounded.at))?.[1]
    throw new CassetteFormatError(
      `cassette ${displayPath(file)} line ${line}${key ? ` (entry ${key}…)` : ''} writes the number ${rounded.written.slice(0, 40)}, which JSON reads as ${rounded.reads}: a recorded verdict is read as written, so the file is not replayed — restore the number the judge gave, or re-record: run the tests locally with \`vitest -u\` (or AGENT_VERDICT_MODE=record)`,
      { file },
    )
  }
  const version = (json as { version?: unknown } | null)?.version
  if (typeof version === 'number' && version > CASSETTE_VERSION) {
    throw new CassetteFormatError(
      `cassette ${displayPath(file)} has format version ${version}, newer than this agent-verdict reads (${CASSETTE_VERSION}) — upgrade agent-verdict (a newer one wrote it), or delete it to re-record its verdicts`,
      { file },
    )
  }
  const parsed = version === 1 ? cassetteSchemas().v1.safeParse(json) : cassetteSchemas().v2.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const at = issue.path.length ? issue.path.join('.') : '(root)'
    throw new CassetteFormatError(
      `cassette ${displayPath(file)} is not a valid verdict cassette: at ${at}: ${issue.message} — ${fix}`,
      { file },
    )
  }
  const migrated = migrate(parsed.data)
  if (migrated.conflict !== undefined) {
    throw new CassetteFormatError(
      `cassette ${displayPath(file)} lists the key ${migrated.conflict.slice(0, 12)}… twice with different judge replies (a merge resolved by keeping both sides?) — keep the entry you mean and delete the other, or delete the file to re-record its verdicts`,
      { file },
    )
  }
  return migrated.cassette
}

/**
 * Any version read into the in-memory form; the next write saves it in the current format. A key listed
 * twice with the same reply (a hand-resolved merge conflict) keeps one copy; with different replies it is a
 * conflict: replaying "the first" would decide the verdict by the order of the lines.
 */
function migrate(data: z.infer<CassetteSchemas['v1']> | z.infer<CassetteSchemas['v2']>): {
  cassette: CassetteFile
  conflict?: string
} {
  const entries: Record<string, CassetteEntry> = {}
  let conflict: string | undefined
  if (data.version === 1) {
    for (const [key, { latencyMs: _volatile, ...entry }] of Object.entries(data.entries)) entries[key] = entry
  } else {
    for (const { key, ...entry } of data.entries) {
      const first = entries[key]
      if (first === undefined) entries[key] = entry
      else if (conflict === undefined && !isDeepStrictEqual(first.output, entry.output)) conflict = key
    }
  }
  return { cassette: { version: CASSETTE_VERSION, entries }, ...(conflict !== undefined ? { conflict } : {}) }
}

function writeError(file: string, err: unknown): CassetteError {
  const code = (err as NodeJS.ErrnoException).code
  return new CassetteError(
    `cassette ${displayPath(file)} could not be written (${code ?? (err as Error).message}) — check that its directory is writable and the disk has space`,
    { file, cause: err },
  )
}

// Callers in one process queue here first, so they do not poll the file lock against each other.
const queues = new Map<string, Promise<unknown>>()

/**
 * Changes a cassette safely when several processes write it at once: takes the file lock, re-reads
 * the file, applies `change` to the fresh copy, writes it atomically and releases. Returns the
 * merged cassette. An empty result removes the file.
 *
 * @example
 * await updateCassette(path, (c) => { c.entries[key] = entry })
 */
export async function updateCassette(
  file: string,
  change: (cassette: CassetteFile) => void,
  options: FileLockOptions = {},
): Promise<CassetteFile> {
  const path = resolve(file)
  const run = async () => {
    await mkdir(dirname(path), { recursive: true }).catch((err: unknown) => {
      throw writeError(path, err)
    })
    return withFileLock(
      `${path}.lock`,
      async () => {
        // Killed writers leave their temp files behind; the next write clears them.
        await removeStaleTemps(dirname(path))
        const cassette = await readCassette(path)
        change(cassette)
        if (Object.keys(cassette.entries).length === 0) await unlink(path).catch(() => {})
        else
          await writeAtomic(path, serializeCassette(cassette)).catch((err: unknown) => {
            throw writeError(path, err)
          })
        return cassette
      },
      options,
    )
  }
  return inPathOrder(path, run)
}

/**
 * Runs `run` once every earlier call for the same absolute `path` in this process has settled, so writers of
 * one file queue here before they contend for its lock (cassettes and agent recordings alike).
 *
 * @example
 * await inPathOrder(resolve(file), async () => writeAtomic(file, text))
 */
export async function inPathOrder<T>(path: string, run: () => Promise<T>): Promise<T> {
  const previous = queues.get(path) ?? Promise.resolve()
  const next = previous.then(run, run)
  queues.set(path, next)
  try {
    return await next
  } finally {
    if (queues.get(path) === next) queues.delete(path)
  }
}

/**
 * Resolves once every queued write to `file` from this process has finished.
 *
 * @example
 * await settleCassetteWrites(path)
 */
export async function settleCassetteWrites(file: string): Promise<void> {
  await queues.get(resolve(file))?.catch(() => {})
}
