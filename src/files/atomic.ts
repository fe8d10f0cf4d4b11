// The one atomic file write of the package (cassettes, agent recordings, batch queue, reports, OTLP files, received
// traces, the report's image cache) and the clean-up of what a killed writer leaves. A leaf: Node only.
// Why not write-file-atomic / proper-lockfile: docs/decisions/0045-own-atomic-write-and-lock.md.
import { randomUUID } from 'node:crypto'
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

/** A temp file older than this is abandoned whoever wrote it: a live write takes milliseconds (pid reuse, other hosts). */
export const STALE_TEMP_MS = 10 * 60_000
// `.<target name>.<pid>.<uuid>.tmp`, as writeAtomic names them: hidden, and the pid says whose it is.
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f-]{36}\.tmp$/

/**
 * True if a process with this pid runs on this machine (one owned by another user counts).
 *
 * @example
 * pidAlive(process.pid) // true
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' // exists, owned by someone else
  }
}

/**
 * Removes the temp files killed writers left in `dir`: those whose pid is not running (on this machine), and any
 * older than {@link STALE_TEMP_MS}. A running writer's temp file is left alone. Returns the names removed.
 *
 * @example
 * await removeStaleTemps('test/__verdicts__')
 */
export async function removeStaleTemps(dir: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = []
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number(TEMP_NAME.exec(name)?.[1])
    if (!pid) continue
    const path = join(dir, name)
    const info = await stat(path).catch(() => null)
    if (!info) continue
    const abandoned = pid !== process.pid && !pidAlive(pid)
    if (!abandoned && now - info.mtimeMs <= STALE_TEMP_MS) continue
    // Gone already (another writer cleaned it, or its own writer renamed it): nothing to do.
    if (
      await unlink(path).then(
        () => true,
        () => false,
      )
    )
      removed.push(name)
  }
  return removed
}

/** Options of {@link writeAtomic}. */
export interface WriteAtomicOptions {
  /** File mode of a new file (default 0o666 before the umask); 0o600 keeps it private to the user. */
  mode?: number
}

/**
 * Writes `data` to `file` atomically: a temp file in the same directory, created exclusively (a planted symlink is
 * never followed), synced, then renamed over it, so readers see the old or the new file and a killed writer leaves
 * at most a temp file ({@link removeStaleTemps} clears it). The directory must exist.
 *
 * @example
 * await writeAtomic(path, text)
 */
export async function writeAtomic(file: string, data: string | Uint8Array, options: WriteAtomicOptions = {}) {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomUUID()}.tmp`)
  try {
    const handle = await open(temp, 'wx', options.mode)
    try {
      await handle.writeFile(data)
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

/**
 * {@link writeAtomic} for a file of its own (a report, an export): creates the parent directories and first removes
 * the temp files killed writers left beside it. Returns the absolute path.
 *
 * @example
 * await writeFileAtomic('reports/agent-verdict-report.json', json)
 */
export async function writeFileAtomic(path: string, content: string): Promise<string> {
  const target = resolve(path)
  await mkdir(dirname(target), { recursive: true })
  await removeStaleTemps(dirname(target))
  await writeAtomic(target, content)
  return target
}
