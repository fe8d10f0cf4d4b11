// Atomic writes (reports, exports, cassettes…) clear the temp files of killed writers and leave a running writer's alone.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { STALE_TEMP_MS, writeAtomic, writeFileAtomic } from '../../src/files/atomic'

const children: Array<ReturnType<typeof spawn>> = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

/** A real process that runs until killed. */
function sleeper() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' })
  children.push(child)
  return { child, exited: new Promise<void>((resolve) => child.on('close', () => resolve())) }
}

describe('writeFileAtomic and leftover temp files', () => {
  it('removes the temp file of a SIGKILLed writer, keeps a running one’s and unrelated files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'write-atomic-'))
    const target = join(dir, 'agent-verdict-report.json')
    const dead = sleeper()
    const live = sleeper()
    dead.child.kill('SIGKILL')
    await dead.exited
    const uuid = '0badc0de-0000-4000-8000-000000000000'
    const deadTemp = `.agent-verdict-report.json.${dead.child.pid}.${uuid}.tmp`
    const deadHtmlTemp = `.report.html.${dead.child.pid}.${uuid}.tmp`
    const liveTemp = `.agent-verdict-report.json.${live.child.pid}.${uuid}.tmp`
    // Not a name writeAtomic gives its temp files: someone else's, never touched.
    const unrelated = `notes.${dead.child.pid}.0badc0de.tmp`
    for (const n of [deadTemp, deadHtmlTemp, liveTemp, unrelated]) writeFileSync(join(dir, n), '{"half":')

    await writeFileAtomic(target, '{"ok":true}\n')
    expect(readFileSync(target, 'utf8')).toBe('{"ok":true}\n')
    expect(readdirSync(dir).sort()).toEqual(['agent-verdict-report.json', liveTemp, unrelated].sort())
  }, 30_000)

  it('removes a temp file older than STALE_TEMP_MS even when its pid runs (pid reuse)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'write-atomic-'))
    const target = join(dir, 'r.json')
    const old = `.r.json.${process.pid}.00c0ffee-0000-4000-8000-000000000000.tmp`
    writeFileSync(join(dir, old), '')
    const longAgo = (Date.now() - STALE_TEMP_MS - 60_000) / 1000
    utimesSync(join(dir, old), longAgo, longAgo)
    await writeFileAtomic(target, 'x')
    expect(readdirSync(dir)).toEqual(['r.json'])
  })
})

describe('writeAtomic', () => {
  it('a failed write leaves no temp file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'write-atomic-'))
    // The directory is gone: the write fails, and nothing of it stays behind.
    await expect(writeAtomic(join(dir, 'missing', 'f.json'), 'x')).rejects.toThrow(/ENOENT/)
    expect(readdirSync(dir)).toEqual([])
  })

  it('creates a new file with the mode asked for (private images of the report cache)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'write-atomic-'))
    await writeAtomic(join(dir, 'img.png'), new Uint8Array([1, 2, 3]), { mode: 0o600 })
    expect(readFileSync(join(dir, 'img.png'))).toEqual(Buffer.from([1, 2, 3]))
    expect(statSync(join(dir, 'img.png')).mode & 0o777).toBe(0o600)
  })
})
