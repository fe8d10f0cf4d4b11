// abortGroup: the first rejection aborts the other tasks, and settle() returns only after all stopped.
import { describe, expect, it } from 'vitest'
import { abortGroup } from '../../src/judges/abort-group'

/** A task that waits `ms` unless aborted; records how it ended. */
function waiting(ms: number, log: string[], name: string) {
  return (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        log.push(`${name} done`)
        resolve(name)
      }, ms)
      signal.addEventListener('abort', () => {
        clearTimeout(timer)
        // Stops a little later, as a real call does once its socket is closed.
        setTimeout(() => {
          log.push(`${name} stopped`)
          reject(new Error(`${name} aborted`))
        }, 20)
      })
    })
}

describe('abortGroup', () => {
  it('returns every result when nothing rejects', async () => {
    const group = abortGroup()
    const a = group.run(async () => 1)
    const b = group.run(async () => 2)
    await group.settle()
    expect(await Promise.all([a, b])).toEqual([1, 2])
    expect(group.signal.aborted).toBe(false)
  })

  it('the first rejection aborts the others; settle throws it only after they stopped', async () => {
    const log: string[] = []
    const group = abortGroup()
    group.run(waiting(10_000, log, 'a'))
    group.run(waiting(10_000, log, 'b'))
    const boom = new Error('config error')
    group.run(async () => {
      log.push('c failed')
      throw boom
    })
    await expect(group.settle()).rejects.toBe(boom)
    expect(log).toEqual(['c failed', 'a stopped', 'b stopped'])
    expect(group.signal.reason).toBe(boom)
  })

  it('follows the parent signal, also when it was aborted before the group was made', async () => {
    const parent = new AbortController()
    const log: string[] = []
    const group = abortGroup(parent.signal)
    group.run(waiting(10_000, log, 'a'))
    parent.abort(new Error('cancelled'))
    await expect(group.settle()).rejects.toThrow('a aborted')
    expect(abortGroup(parent.signal).signal.aborted).toBe(true)
  })

  it('a synchronous throw in a task is a rejection like any other, not a crash of run()', async () => {
    const group = abortGroup()
    const p = group.run(() => {
      throw new Error('sync')
    })
    await expect(group.settle()).rejects.toThrow('sync')
    await expect(p).rejects.toThrow('sync')
  })

  it('lets every task of a large group listen to the one signal without a MaxListenersExceededWarning', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.name)
    process.on('warning', onWarning)
    try {
      const group = abortGroup(new AbortController().signal)
      const tasks = Array.from({ length: 40 }, () =>
        group.run(
          (signal) =>
            new Promise<void>((resolve) => {
              signal.addEventListener('abort', () => {}, { once: true })
              setTimeout(resolve, 5)
            }),
        ),
      )
      await group.settle()
      await Promise.all(tasks)
      await new Promise((resolve) => setImmediate(resolve)) // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning')
  })
})
