// Trace paths that are not regular files are refused before any read (a FIFO would block, /dev/zero never end).
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diagnoseCommand } from '../../src/cli/diagnose'
import { TraceFormatError } from '../../src/trace/errors'
import { loadJsonlFile } from '../../src/trace/load-large'
import { expandTracePattern, loadTrace, loadTraceFile, loadTraces } from '../../src/trace/load'
import { rejectionOf } from '../helpers/rejection'

const tmp = mkdtempSync(join(tmpdir(), 'trace-bounded-'))
const HAVE_MKFIFO = process.platform !== 'win32' && spawnSync('mkfifo', [join(tmp, 'probe')]).status === 0
const HAVE_DEV_ZERO = existsSync('/dev/zero')
const fifo = join(tmp, 'export.jsonl')
if (HAVE_MKFIFO) spawnSync('mkfifo', [fifo])

describe('directories with symbolic links', () => {
  it.skipIf(process.platform === 'win32')(
    'a link loop is not walked into (one file was counted 41 times, two loops never ended); a link to a file is kept',
    async () => {
      const dir = join(tmp, 'looped')
      mkdirSync(join(dir, 'd'), { recursive: true })
      copyFileSync(
        new URL('../../examples/traces/0ebe673d64647ec44c370638b82d3c78.json', import.meta.url),
        join(dir, 'run.json'),
      )
      symlinkSync('..', join(dir, 'd', 'up'))
      symlinkSync('..', join(dir, 'd', 'again'))
      symlinkSync('../run.json', join(dir, 'd', 'linked.json'))
      for (const pattern of [dir, `${dir}/**/*.json`])
        expect((await expandTracePattern(pattern)).sort()).toEqual([
          join(dir, 'd', 'linked.json'),
          join(dir, 'run.json'),
        ])
    },
  )
})

describe('trace paths that are not regular files', () => {
  it.skipIf(!HAVE_MKFIFO)('a FIFO with no writer is refused at once by every loader', async () => {
    const expected = `${fifo}: is a FIFO (named pipe), not a regular file, so it is not read (it could block or never end); write the trace to a file first, or read it yourself and pass the text to parseTraces()`
    for (const load of [
      () => loadTraceFile(fifo),
      () => loadTrace(fifo),
      () => loadTraces([fifo]),
      () => loadJsonlFile(fifo),
    ]) {
      const err = await rejectionOf(load(), TraceFormatError)
      expect(err.message).toBe(expected)
      expect(err.file).toBe(fifo)
    }
  })

  it.skipIf(!HAVE_DEV_ZERO)('/dev/zero is refused before reading, also through a symlink named .json', async () => {
    const link = join(tmp, 'run.json')
    symlinkSync('/dev/zero', link)
    for (const path of ['/dev/zero', link]) {
      for (const load of [() => loadTraceFile(path), () => loadJsonlFile(path)]) {
        expect((await rejectionOf(load(), TraceFormatError)).message).toMatch(
          /: is a character device, not a regular file, so it is not read/,
        )
      }
    }
  })

  it.skipIf(!HAVE_MKFIFO || !HAVE_DEV_ZERO)(
    'diagnose names both as bad input (exit 2) and still diagnoses the real file',
    async () => {
      let stdout = ''
      let stderr = ''
      const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } }
      const good = 'test/fixtures/otlp/genai-agent-run.json'
      const code = await diagnoseCommand([fifo, '/dev/zero', good], io)
      expect(code).toBe(2)
      expect(stderr).toContain(`${fifo}: is a FIFO (named pipe)`)
      expect(stderr).toContain('/dev/zero: is a character device')
      expect(stdout).toContain(`${good}\n  trace`)
    },
  )
})
