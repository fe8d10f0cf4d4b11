import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { cassettePathFor, readCassette } from '../../src/cassette/store'
import { countingJudge, tempDir, verdictRequest } from './helpers'

const worker = fileURLToPath(new URL('./fixtures/record-worker.ts', import.meta.url))
const repo = fileURLToPath(new URL('../..', import.meta.url))

function startWorker(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, ...args], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => {
    stdout += d
  })
  child.stderr.on('data', (d: Buffer) => {
    stderr += d
  })
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  )
  return { child, exited, stdout: () => stdout }
}

describe('cassette writes from several processes', () => {
  it('4 worker processes × 50 verdicts into one file lose nothing and leave valid JSON', async () => {
    const file = cassettePathFor(join(tempDir(), 'shared.test.ts'))
    const runs = await Promise.all([0, 1, 2, 3].map((w) => startWorker([file, String(w), '50']).exited))
    for (const run of runs) {
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.stdout).toBe('recorded 50\n')
    }
    JSON.parse(readFileSync(file, 'utf8'))
    const cassette = await readCassette(file)
    expect(Object.keys(cassette.entries)).toHaveLength(200)
    const texts = Object.values(cassette.entries).map((e) => (e.output as { reasoning: string }).reasoning)
    for (const w of [0, 1, 2, 3]) for (const i of [0, 25, 49]) expect(texts).toContain(`judged: worker ${w} case ${i}`)
    expect(readdirSync(dirname(file))).toEqual(['shared.test.ts.json']) // no temp or lock files left
  }, 120_000)

  it('keeps every verdict written before a worker is killed, and the next writer gets the lock', async () => {
    const file = cassettePathFor(join(tempDir(), 'killed.test.ts'))
    const run = startWorker([file, 'k', '1000', 'sequential'])
    await new Promise<void>((resolve) => {
      const check = () => (run.stdout().split('\n').length > 6 ? resolve() : setTimeout(check, 5))
      check()
    })
    run.child.kill('SIGKILL')
    await run.exited
    const announced = run
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('recorded ')).length
    const survived = Object.keys((await readCassette(file)).entries).length
    expect(survived).toBeGreaterThanOrEqual(announced)

    // If it died holding the lock, the dead pid frees it; either way this write must go through.
    const next = withCassette(countingJudge(), { file, mode: 'auto', lock: { timeoutMs: 20_000, staleMs: 60_000 } })
    await next.evaluate(verdictRequest('after the crash'))
    expect(Object.keys((await readCassette(file)).entries)).toHaveLength(survived + 1)
  }, 60_000)
})
