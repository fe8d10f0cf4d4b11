// Report writes clear the temp files of killed writers and leave a running writer's alone.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { STALE_TEMP_MS, writeFileAtomic } from '../../src/report/write-atomic'

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
    const deadTemp = `agent-verdict-report.json.${dead.child.pid}.0badc0de.tmp`
    const liveTemp = `agent-verdict-report.json.${live.child.pid}.0000beef.tmp`
    const otherTarget = `report.html.${dead.child.pid}.0badc0de.tmp`
    for (const n of [deadTemp, liveTemp, otherTarget]) writeFileSync(join(dir, n), '{"half":')

    await writeFileAtomic(target, '{"ok":true}\n')
    expect(readFileSync(target, 'utf8')).toBe('{"ok":true}\n')
    expect(readdirSync(dir).sort()).toEqual(['agent-verdict-report.json', liveTemp, otherTarget].sort())
  }, 30_000)

  it('removes a temp file older than STALE_TEMP_MS even when its pid runs (pid reuse)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'write-atomic-'))
    const target = join(dir, 'r.json')
    const old = `r.json.${process.pid}.00c0ffee.tmp`
    writeFileSync(join(dir, old), '')
    const longAgo = (Date.now() - STALE_TEMP_MS - 60_000) / 1000
    utimesSync(join(dir, old), longAgo, longAgo)
    await writeFileAtomic(target, 'x')
    expect(readdirSync(dir)).toEqual(['r.json'])
  })
})
