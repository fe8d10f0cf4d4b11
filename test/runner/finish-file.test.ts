// Decision 0043 at the end of a test file, in process: the notice, the prune of a file whose tests made no judge call,
// and a named project claiming the entries it replayed.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { configureRuntime } from '../../runner/runtime'
import { finishFile, judgeFor } from '../../runner/test-judge'
import { runInCassetteScope } from '../../src/cassette/scope'
import { cassettePathFor, readCassette, serializeCassette, type CassetteEntry } from '../../src/cassette/store'
import { setRunnerJudge } from '../../src/judges/runner-judge'
import { countingJudge, storedEntry, tempDir, verdictRequest } from '../cassette/helpers'

const entry = (test: string, extra: Partial<CassetteEntry> = {}) => storedEntry({ test, ...extra })
const k = (c: string) => c.repeat(64)
const runOf = (passed: string[], declared: string[]) => ({
  passed: new Set(passed),
  declared: new Set(declared),
  allRan: false,
  complete: false,
})

function testFileWith(entries: Record<string, CassetteEntry>): string {
  const testPath = join(tempDir(), 'a.test.ts')
  const file = cassettePathFor(testPath)
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, serializeCassette({ version: 2, entries }))
  return testPath
}

afterEach(() => {
  vi.unstubAllEnvs()
  configureRuntime({ runner: 'vitest', isUpdate: () => false })
  setRunnerJudge(undefined)
})

describe('finishFile', () => {
  it('a run that made no judge call still prunes, on -u, the entries of a test that passed', async () => {
    configureRuntime({ runner: 'vitest', isUpdate: () => true })
    const testPath = testFileWith({ [k('a')]: entry('passes'), [k('b')]: entry('fails') })
    const pruned = await finishFile(testPath, { complete: false, run: runOf(['passes'], ['passes', 'fails']) })
    expect(pruned).toEqual([k('a')])
    expect(Object.keys((await readCassette(cassettePathFor(testPath))).entries)).toEqual([k('b')])
  })

  it('any other run leaves them and says how many, once', async () => {
    configureRuntime({ runner: 'jest', isUpdate: () => false })
    const testPath = testFileWith({ [k('a')]: entry('passes'), [k('b')]: entry('fails') })
    const warnings: string[] = []
    await finishFile(testPath, { complete: false, run: runOf(['passes'], []), warn: (m) => warnings.push(m) })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/holds 1 stale verdict entry \(of "passes"\).*`jest -u <this test file>` prunes them/)
    expect(Object.keys((await readCassette(cassettePathFor(testPath))).entries)).toHaveLength(2)
  })

  it('a named project claims the entries it replayed in an auto run, so another project’s -u keeps them', async () => {
    const request = verdictRequest('Is it grounded?')
    const testPath = join(tempDir(), 'b.test.ts')
    const ctx = { testPath, currentTestName: 'shared' }
    // An auto run, as on a developer's machine: under CI=true (this suite in CI) the first call would be a miss.
    vi.stubEnv('CI', '')
    vi.stubEnv('AGENT_VERDICT_MODE', 'auto')
    configureRuntime({ runner: 'vitest', isUpdate: () => false, project: () => 'alpha' })
    await runInCassetteScope({ test: 'shared' }, () => judgeFor(ctx, countingJudge()).evaluate(request))
    await finishFile(testPath, { complete: true })
    configureRuntime({ runner: 'vitest', isUpdate: () => false, project: () => 'beta' })
    const replaying = countingJudge()
    await runInCassetteScope({ test: 'shared' }, () => judgeFor(ctx, replaying).evaluate(request))
    expect(replaying.calls).toHaveLength(0)
    await finishFile(testPath, { complete: true })
    const [only] = Object.values((await readCassette(cassettePathFor(testPath))).entries)
    expect(only.projects).toEqual(['alpha', 'beta'])

    // alpha no longer asks it: its -u releases alpha only.
    configureRuntime({ runner: 'vitest', isUpdate: () => true, project: () => 'alpha' })
    await runInCassetteScope({ test: 'shared' }, () => judgeFor(ctx, countingJudge()).evaluate(verdictRequest('New?')))
    await finishFile(testPath, { complete: true })
    const left = Object.values((await readCassette(cassettePathFor(testPath))).entries)
    expect(left.find((e) => e.projects?.includes('beta'))?.projects).toEqual(['beta'])
  })
})
