import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CassetteLockError } from '../../src/cassette/errors'
import { withFileLock } from '../../src/cassette/lock'
import { tempDir } from './helpers'

const lockBody = (pid: number, host = hostname()) => JSON.stringify({ pid, host, token: 'someone-else' })

describe('withFileLock', () => {
  it('lets one holder in at a time, so read-modify-write cycles lose nothing', async () => {
    const dir = tempDir()
    const counter = join(dir, 'counter')
    writeFileSync(counter, '0')
    let holders = 0
    let maxHolders = 0
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withFileLock(join(dir, 'counter.lock'), async () => {
          maxHolders = Math.max(maxHolders, ++holders)
          const n = Number(readFileSync(counter, 'utf8'))
          await new Promise((resolve) => setTimeout(resolve, 1))
          writeFileSync(counter, String(n + 1))
          holders--
        }),
      ),
    )
    expect(readFileSync(counter, 'utf8')).toBe('20')
    expect(maxHolders).toBe(1)
    expect(existsSync(join(dir, 'counter.lock'))).toBe(false)
  })

  it('recovers a lock left by a process that has exited', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    const lock = join(tempDir(), 'dead.lock')
    writeFileSync(lock, lockBody(Number(dead.stdout)))
    // staleMs is long, so only the pid check can free it before the timeout.
    const ran = await withFileLock(lock, async () => 'ran', { staleMs: 60_000, timeoutMs: 20_000 })
    expect(ran).toBe('ran')
    expect(existsSync(lock)).toBe(false)
  })

  it('recovers an abandoned lock by its age when the owner cannot be checked', async () => {
    const lock = join(tempDir(), 'old.lock')
    writeFileSync(lock, lockBody(process.pid, 'another-host'))
    const old = new Date(Date.now() - 60_000)
    utimesSync(lock, old, old)
    expect(await withFileLock(lock, async () => 'ran', { staleMs: 10_000, timeoutMs: 20_000 })).toBe('ran')
  })

  it('recovers a lock whose writer was killed before it wrote its owner (empty file), long before staleMs', async () => {
    const lock = join(tempDir(), 'unwritten.lock')
    writeFileSync(lock, '')
    const earlier = new Date(Date.now() - 3_000)
    utimesSync(lock, earlier, earlier)
    expect(await withFileLock(lock, async () => 'ran', { staleMs: 60_000, timeoutMs: 20_000 })).toBe('ran')
  })

  it('leaves a just-created lock without its owner alone (its writer is about to fill it in)', async () => {
    const lock = join(tempDir(), 'fresh.lock')
    writeFileSync(lock, '')
    const err = await withFileLock(lock, async () => 'ran', { staleMs: 60_000, timeoutMs: 300 }).catch(
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(CassetteLockError)
    expect(readFileSync(lock, 'utf8')).toBe('')
  })

  it('waits for a live holder and then says who holds it and what to do', async () => {
    const lock = join(tempDir(), 'held.lock')
    writeFileSync(lock, lockBody(process.pid))
    const err = await withFileLock(lock, async () => 'ran', { timeoutMs: 200 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CassetteLockError)
    expect((err as Error).message).toContain(`held by pid ${process.pid} on ${hostname()}`)
    expect((err as Error).message).toContain('if no test run is writing verdicts, delete the lock file')
    expect(readFileSync(lock, 'utf8')).toBe(lockBody(process.pid)) // a live holder's lock is never broken
  })

  it('releases the lock when the work throws', async () => {
    const lock = join(tempDir(), 'throws.lock')
    await expect(
      withFileLock(lock, async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(existsSync(lock)).toBe(false)
  })
})
