// Temp files of killed cassette writers are removed by the next write; a running writer's are kept.
import { spawn } from 'node:child_process'
import { readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { cassettePathFor, readCassette } from '../../src/cassette/store'
import { removeStaleTemps, STALE_TEMP_MS } from '../../src/files/atomic'
import { countingJudge, tempDir, verdictRequest } from './helpers'

const worker = fileURLToPath(new URL('./fixtures/stall-worker.ts', import.meta.url))
const repo = fileURLToPath(new URL('../..', import.meta.url))
const children: Array<ReturnType<typeof spawn>> = []

/** Starts a writer and resolves once it is stuck mid-write (its temp file written, not yet renamed). */
async function stalledWriter(file: string, label: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, file, label], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  let err = ''
  child.stderr.on('data', (d: Buffer) => {
    err += d
  })
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d
      if (out.includes('mid-write')) resolve()
    })
    child.on('close', (code) => reject(new Error(`worker exited (${code}) before writing: ${err}`)))
  })
  return { child, exited }
}

const temps = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.tmp'))
    .sort()

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

describe('temp files left by killed cassette writers', () => {
  it('a writer killed with SIGKILL mid-write leaves a temp file; the next write removes it and goes through', async () => {
    const file = cassettePathFor(join(tempDir(), 'killed.test.ts'))
    const writer = await stalledWriter(file, 'killed')
    const left = temps(dirname(file))
    expect(left).toHaveLength(1)
    expect(left[0]).toMatch(new RegExp(`^\\.killed\\.test\\.ts\\.json\\.${writer.child.pid}\\.[0-9a-f-]{36}\\.tmp$`))
    writer.child.kill('SIGKILL')
    await writer.exited

    const next = withCassette(countingJudge(), { file, mode: 'auto', lock: { timeoutMs: 20_000, staleMs: 60_000 } })
    await next.evaluate(verdictRequest('after the crash'))
    expect(temps(dirname(file))).toEqual([])
    // The killed write never landed; the new one did.
    expect(
      Object.values((await readCassette(file)).entries).map((e) => (e.output as { reasoning: string }).reasoning),
    ).toEqual(['judged: after the crash'])
    expect(readdirSync(dirname(file))).toEqual(['killed.test.ts.json'])
  }, 60_000)

  it("keeps a running writer's temp file (another cassette in the same directory) while removing a dead one's", async () => {
    const dir = dirname(cassettePathFor(join(tempDir(), 'x.test.ts')))
    const live = await stalledWriter(join(dir, 'live.test.ts.json'), 'live')
    const dead = await stalledWriter(join(dir, 'dead.test.ts.json'), 'dead')
    dead.child.kill('SIGKILL')
    await dead.exited
    const [deadTemp, liveTemp] = [
      temps(dir).find((n) => n.startsWith('.dead')),
      temps(dir).find((n) => n.startsWith('.live')),
    ]
    expect(temps(dir)).toHaveLength(2)
    expect(deadTemp).toBeDefined()
    expect(liveTemp).toBeDefined()

    const next = withCassette(countingJudge(), {
      file: join(dir, 'other.test.ts.json'),
      mode: 'auto',
      lock: { timeoutMs: 20_000 },
    })
    await next.evaluate(verdictRequest('meanwhile'))
    expect(temps(dir)).toEqual([liveTemp])
    expect(live.child.exitCode).toBeNull() // still running, its file untouched
  }, 60_000)

  it('a temp file older than STALE_TEMP_MS goes even when its pid is alive (pid reuse); fresh ones of live pids stay', async () => {
    const dir = tempDir()
    const old = `.a.test.ts.json.${process.pid}.00000000-0000-4000-8000-000000000000.tmp`
    const fresh = `.b.test.ts.json.${process.pid}.00000000-0000-4000-8000-000000000001.tmp`
    const unrelated = 'notes.tmp'
    for (const n of [old, fresh, unrelated]) writeFileSync(join(dir, n), '{')
    const longAgo = (Date.now() - STALE_TEMP_MS - 60_000) / 1000
    utimesSync(join(dir, old), longAgo, longAgo)
    expect(await removeStaleTemps(dir)).toEqual([old])
    expect(readdirSync(dir).sort()).toEqual([fresh, unrelated].sort())
  })
})
