import { randomBytes } from 'node:crypto'
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

/** A temp file older than this is abandoned whoever wrote it (pid reuse, another machine on a shared disk). */
export const STALE_TEMP_MS = 10 * 60_000

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' // exists, owned by someone else
  }
}

/**
 * Removes the temp files of `target` that killed writers left (`<name>.<pid>.<hex>.tmp`): those whose
 * pid is not running, and any older than {@link STALE_TEMP_MS}. A running writer's temp file stays.
 * Returns the names removed.
 *
 * @example
 * await removeStaleTemps('reports/agent-verdict-report.json')
 */
export async function removeStaleTemps(target: string, now = Date.now()): Promise<string[]> {
  const dir = dirname(target)
  const prefix = `${basename(target)}.`
  const removed: string[] = []
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(/^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length))?.[1])
    if (!pid) continue
    const info = await stat(join(dir, name)).catch(() => null)
    if (!info) continue
    const abandoned = pid !== process.pid && !pidAlive(pid)
    if (!abandoned && now - info.mtimeMs <= STALE_TEMP_MS) continue
    await rm(join(dir, name), { force: true })
    removed.push(name)
  }
  return removed
}

/**
 * Writes `content` to `path` via a temp file in the same directory + rename, creating parent
 * directories, so a reader (or a crash) never sees half a report. Temp files that killed writers left
 * beside it are removed first. Returns the absolute path.
 *
 * @example
 * await writeFileAtomic('reports/agent-verdict-report.json', json)
 */
export async function writeFileAtomic(path: string, content: string): Promise<string> {
  const target = resolve(path)
  await mkdir(dirname(target), { recursive: true })
  await removeStaleTemps(target)
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    await writeFile(tmp, content, 'utf8')
    await rename(tmp, target)
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
  return target
}
