import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { z } from 'zod'
import { CassetteError, CassetteFormatError, displayPath } from './errors'
import { pidAlive, withFileLock, type FileLockOptions } from './lock'

/**
 * One recorded verdict. Holds the parsed output, usage and when it was recorded — never credentials.
 *
 * @example
 * CassetteEntrySchema.parse(entry).recordedAt // '2026-03-18T09:30:00.000Z'
 */
export const CassetteEntrySchema = z.object({
  metric: z.string(),
  provider: z.string(),
  model: z.string(),
  promptVersion: z.string(),
  recordedAt: z.iso.datetime(),
  output: z.json(),
  usage: z.object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }),
  latencyMs: z.number().nonnegative(),
  costUsd: z.number().nonnegative().nullable(),
})
export type CassetteEntry = z.infer<typeof CassetteEntrySchema>

/**
 * A cassette file: `__verdicts__/<test file>.json`, entries keyed by `cassetteKey`.
 *
 * @example
 * CassetteFileSchema.parse(JSON.parse(text)).entries
 */
export const CassetteFileSchema = z.object({
  version: z.literal(1),
  entries: z.record(z.string().regex(/^[0-9a-f]{64}$/, 'keys are sha256 hex'), CassetteEntrySchema),
})
export type CassetteFile = z.infer<typeof CassetteFileSchema>

/** The cassette file version this build reads and writes. */
const CASSETTE_VERSION = 1

const emptyCassette = (): CassetteFile => ({ version: 1, entries: {} })

/**
 * Where a test file's verdicts live: `__verdicts__/<name>.json` beside it, like `__snapshots__`.
 *
 * @example
 * cassettePathFor('test/chart.test.ts') // 'test/__verdicts__/chart.test.ts.json'
 */
export function cassettePathFor(testFile: string): string {
  return join(dirname(testFile), '__verdicts__', `${basename(testFile)}.json`)
}

/**
 * The file's text: entries sorted by key, each entry's fields in a fixed order, 2-space JSON and a
 * trailing newline — the same verdicts always give the same bytes, so a PR diff shows only changes.
 *
 * @example
 * await writeFile(path, serializeCassette({ version: 1, entries }))
 */
export function serializeCassette(cassette: CassetteFile): string {
  const entries: Record<string, CassetteEntry> = {}
  for (const key of Object.keys(cassette.entries).sort()) {
    const e = cassette.entries[key]
    entries[key] = {
      metric: e.metric,
      provider: e.provider,
      model: e.model,
      promptVersion: e.promptVersion,
      recordedAt: e.recordedAt,
      output: e.output,
      usage: { inputTokens: e.usage.inputTokens, outputTokens: e.usage.outputTokens },
      latencyMs: e.latencyMs,
      costUsd: e.costUsd,
    }
  }
  return `${JSON.stringify({ version: 1, entries }, null, 2)}\n`
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
    text = await readFile(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return emptyCassette()
    const what = code === 'EISDIR' ? 'is a directory, not a cassette file' : `cannot be read (${code ?? (err as Error).message})`
    throw new CassetteError(`cassette ${displayPath(file)} ${what} — check its permissions, or delete it to re-record its verdicts`, { file, cause: err })
  }
  const fix = `delete it to re-record its verdicts, or fix it${text.includes('<<<<<<<') ? ' (it has unresolved git merge conflict markers)' : ''}`
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new CassetteFormatError(`cassette ${displayPath(file)} is not valid JSON (${(err as Error).message}) — ${fix}`, { file, cause: err })
  }
  const version = (json as { version?: unknown } | null)?.version
  if (typeof version === 'number' && version !== CASSETTE_VERSION) {
    throw new CassetteFormatError(
      `cassette ${displayPath(file)} is not a valid verdict cassette: at version: it has version ${version}, this agent-verdict reads version ${CASSETTE_VERSION} — ${version > CASSETTE_VERSION ? 'upgrade agent-verdict (a newer one wrote it), or ' : ''}delete it to re-record its verdicts`,
      { file },
    )
  }
  const parsed = CassetteFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const at = issue.path.length ? issue.path.join('.') : '(root)'
    throw new CassetteFormatError(`cassette ${displayPath(file)} is not a valid verdict cassette: at ${at}: ${issue.message} — ${fix}`, { file })
  }
  return parsed.data
}

/** A temp file older than this is abandoned whoever wrote it: a live write takes milliseconds (pid reuse, other hosts). */
export const STALE_TEMP_MS = 10 * 60_000
// `.<cassette name>.<pid>.<uuid>.tmp`, as writeAtomic names them.
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f-]{36}\.tmp$/

/**
 * Removes temp files that killed writers left in a cassette directory: those whose pid is not running
 * (on this machine), and any older than {@link STALE_TEMP_MS}. A running writer's temp file is left alone.
 * Returns the names removed.
 *
 * @example
 * await removeStaleTemps('test/__verdicts__')
 */
export async function removeStaleTemps(dir: string, now = Date.now()): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  const removed: string[] = []
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1])
    if (!pid) continue
    const path = join(dir, name)
    const info = await stat(path).catch(() => null)
    if (!info) continue
    const abandoned = pid !== process.pid && !pidAlive(pid)
    if (!abandoned && now - info.mtimeMs <= STALE_TEMP_MS) continue
    // Gone already (another writer cleaned it, or its own writer renamed it): nothing to do.
    if (await unlink(path).then(() => true, () => false)) removed.push(name)
  }
  return removed
}

async function writeAtomic(file: string, text: string): Promise<void> {
  // Same directory as the target, so the rename is atomic: readers see the old or the new file, never half.
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomUUID()}.tmp`)
  try {
    const handle = await open(temp, 'wx')
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (err) {
    await unlink(temp).catch(() => {})
    throw err
  }
}

function writeError(file: string, err: unknown): CassetteError {
  const code = (err as NodeJS.ErrnoException).code
  return new CassetteError(`cassette ${displayPath(file)} could not be written (${code ?? (err as Error).message}) — check that its directory is writable and the disk has space`, { file, cause: err })
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
export async function updateCassette(file: string, change: (cassette: CassetteFile) => void, options: FileLockOptions = {}): Promise<CassetteFile> {
  const path = resolve(file)
  const run = async () => {
    await mkdir(dirname(path), { recursive: true }).catch((err: unknown) => {
      throw writeError(path, err)
    })
    return withFileLock(`${path}.lock`, async () => {
      // Killed writers leave their temp files behind; the next write clears them.
      await removeStaleTemps(dirname(path))
      const cassette = await readCassette(path)
      change(cassette)
      if (Object.keys(cassette.entries).length === 0) await unlink(path).catch(() => {})
      else await writeAtomic(path, serializeCassette(cassette)).catch((err: unknown) => {
        throw writeError(path, err)
      })
      return cassette
    }, options)
  }
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
