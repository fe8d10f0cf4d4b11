// A trace matcher given a FIFO or a device path refuses it at once (its read is synchronous: a FIFO would
// block the whole test process, /dev/zero would be read to the string limit).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveTrace } from '../../../matchers/trace-received'
import { TraceFormatError } from '../../../src/trace/errors'

const hint = { name: 'toCallTool', args: 'name' }
const tmp = mkdtempSync(join(tmpdir(), 'received-bounded-'))
const fifo = join(tmp, 'run.json')
const HAVE_MKFIFO = process.platform !== 'win32' && spawnSync('mkfifo', [fifo]).status === 0

function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (err) {
    return err as Error
  }
  throw new Error('expected a throw')
}

describe('resolveTrace on paths that are not regular files', () => {
  it.skipIf(!HAVE_MKFIFO)('a FIFO is a TraceFormatError, not a hang', () => {
    const err = thrown(() => resolveTrace(fifo, hint))
    expect(err).toBeInstanceOf(TraceFormatError)
    expect(err.message).toContain(
      `received is not a readable trace: ${fifo}: is a FIFO (named pipe), not a regular file, so it is not read`,
    )
  })

  it.skipIf(!existsSync('/dev/zero'))('/dev/zero is refused before reading', () => {
    const err = thrown(() => resolveTrace('/dev/zero', hint))
    expect(err).toBeInstanceOf(TraceFormatError)
    expect(err.message).toContain('/dev/zero: is a character device')
  })

  it('a directory keeps its own advice', () => {
    expect(thrown(() => resolveTrace(tmp, hint)).message).toContain(
      'is a directory, not a trace file; load one file, or loop over `await loadTraces(dir)`',
    )
  })

  it('an array nested 100,000 deep is described without recursing through it', () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(thrown(() => resolveTrace(deep, hint)).message).toContain('got an array whose first item is an array')
  })
})
