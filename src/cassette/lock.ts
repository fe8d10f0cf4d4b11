import { randomUUID } from 'node:crypto'
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { pidAlive } from '../files/atomic'
import { CassetteLockError, displayPath } from './errors'

/** How long to wait for a lock, and when a held lock counts as abandoned. */
export interface FileLockOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number
  /** A lock file untouched this long is abandoned (default 10 s; holds last milliseconds). */
  staleMs?: number
}

interface LockOwner {
  pid: number
  host: string
  token: string
}

const HOST = hostname()
/** A lock file still without its owner after this long was left by a writer killed while taking it. */
const UNWRITTEN_MS = 2_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function readOwner(lockPath: string): Promise<LockOwner | null> {
  try {
    return JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner
  } catch {
    return null // gone, or created but not yet written: judge it by its age alone
  }
}

/**
 * Removes the lock if its owner is dead (same host) or it is older than `staleMs`. The lock is first
 * renamed away — only one process can rename a given file — and its inode checked, so a fresh lock
 * taken meanwhile by someone else is put back instead of broken.
 */
async function breakIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  const before = await stat(lockPath).catch(() => null)
  if (!before) return true
  const owner = await readOwner(lockPath)
  const dead = owner !== null && owner.host === HOST && owner.pid !== process.pid && !pidAlive(owner.pid)
  const age = Date.now() - before.mtimeMs
  // A writer fills in its owner right after creating the file; one killed in between leaves a lock no
  // pid can vouch for, abandoned once it is older than that step could ever take.
  const unwritten = owner === null && age > UNWRITTEN_MS
  if (!dead && !unwritten && age <= staleMs) return false
  const tomb = `${lockPath}.stale-${process.pid}-${randomUUID()}`
  try {
    await rename(lockPath, tomb)
  } catch {
    return true // someone else broke or released it first
  }
  const moved = await stat(tomb).catch(() => null)
  if (moved && (moved.ino !== before.ino || moved.dev !== before.dev)) {
    await link(tomb, lockPath).catch(() => {}) // not the lock we judged: restore it if the slot is free
  }
  await unlink(tomb).catch(() => {})
  return true
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 30_000
  const staleMs = options.staleMs ?? 10_000
  const token = randomUUID()
  const body = JSON.stringify({ pid: process.pid, host: HOST, token } satisfies LockOwner)
  const started = Date.now()
  for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
    try {
      const handle = await open(lockPath, 'wx')
      try {
        await handle.writeFile(body)
      } finally {
        await handle.close()
      }
      return token
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    if (await breakIfStale(lockPath, staleMs)) continue
    if (Date.now() - started > timeoutMs) {
      const owner = await readOwner(lockPath)
      throw new CassetteLockError(
        `could not lock ${displayPath(lockPath)} within ${timeoutMs} ms (held by pid ${owner?.pid ?? '?'} on ${owner?.host ?? '?'}) — if no test run is writing verdicts, delete the lock file`,
        { file: lockPath },
      )
    }
    await sleep(delay / 2 + Math.random() * delay) // jitter: waiting workers must not retry in lockstep
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  const owner = await readOwner(lockPath)
  // Only remove our own lock: if ours was broken as stale, the file now belongs to someone else.
  if (owner?.token === token) await unlink(lockPath).catch(() => {})
}

/**
 * Runs `fn` while holding an exclusive lock file (`open(path, 'wx')`), shared by all processes on
 * the machine: retries with jittered backoff, recovers locks left by dead processes (by pid) or
 * abandoned ones (by age), and always releases.
 *
 * @example
 * await withFileLock('test/__verdicts__/a.test.ts.json.lock', async () => { ...read, merge, write... })
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const token = await acquire(lockPath, options)
  try {
    return await fn()
  } finally {
    await release(lockPath, token)
  }
}
