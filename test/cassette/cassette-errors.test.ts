// Cassette problems are CassetteErrors that say what to do with the file, thrown as they are: never an
// "unjudgeable" verdict and never blamed on the judge.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { toSatisfyRubric } from '../../matchers/to-satisfy-rubric'
import { withCassette } from '../../src/cassette/cassette-judge'
import { CassetteError, CassetteFormatError, CassetteLockError } from '../../src/cassette/errors'
import { cassettePathFor, readCassette, updateCassette } from '../../src/cassette/store'
import { callJudge } from '../../src/judges/judge-call'
import { rejectionOf } from '../helpers/rejection'
import { countingJudge, tempDir, verdictRequest } from './helpers'

beforeEach(() => {
  vi.stubEnv('AGENT_VERDICT_MODE', 'auto')
  vi.stubEnv('CI', '')
})
afterEach(() => vi.unstubAllEnvs())

describe('readCassette errors', () => {
  it('a path that is a directory is a CassetteError naming it, not a raw EISDIR', async () => {
    const dir = join(tempDir(), 'a.test.ts.json')
    mkdirSync(dir)
    const err = await rejectionOf(readCassette(dir), CassetteError)
    expect(err.file).toBe(dir)
    expect(err.message).toMatch(
      /^cassette .*a\.test\.ts\.json is a directory, not a cassette file — check its permissions, or delete it to re-record its verdicts$/,
    )
  })

  it('a cassette of another version says which, and to upgrade when it is newer', async () => {
    const file = join(tempDir(), 'v.json')
    writeFileSync(file, JSON.stringify({ version: 3, entries: [] }))
    const err = await rejectionOf(readCassette(file), CassetteFormatError)
    expect(err.message).toMatch(
      /format version 3, newer than this agent-verdict reads \(2\) — upgrade agent-verdict \(a newer one wrote it\), or delete it to re-record its verdicts$/,
    )
    writeFileSync(file, JSON.stringify({ version: 0, entries: {} }))
    expect((await rejectionOf(readCassette(file), CassetteFormatError)).message).not.toContain('upgrade')
  })

  it('a write that cannot land is a CassetteError saying what to check', async () => {
    const root = tempDir()
    writeFileSync(join(root, '__verdicts__'), 'a file where the directory should be')
    const err = await rejectionOf(
      updateCassette(join(root, '__verdicts__', 'x.json'), () => {}),
      CassetteError,
    )
    expect(err.message).toMatch(/could not be written \((EEXIST|ENOTDIR)\) — check that its directory is writable/)
  })
})

describe('through callJudge: a cassette error is thrown, not an unjudgeable verdict', () => {
  it('corrupt JSON', async () => {
    const file = join(tempDir(), 'corrupt.json')
    writeFileSync(file, '{"version":1,"entries":{')
    const judge = countingJudge()
    const err = await rejectionOf(
      callJudge(withCassette(judge, { file, mode: 'auto' }), verdictRequest('x'), { samples: 3 }),
      CassetteFormatError,
    )
    expect(err.message).toMatch(/is not valid JSON .* — delete it to re-record its verdicts, or fix it$/)
    expect(judge.calls).toHaveLength(0)
  })

  it('a lock held by a live process past the timeout', async () => {
    const file = join(tempDir(), 'locked.json')
    // Held by this very process (alive, so never broken as a dead owner's lock).
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, host: 'elsewhere', token: 't' }))
    const judge = withCassette(countingJudge(), { file, mode: 'auto', lock: { timeoutMs: 50, staleMs: 60_000 } })
    const err = await rejectionOf(callJudge(judge, verdictRequest('y')), CassetteLockError)
    expect(err.message).toMatch(/could not lock .*locked\.json\.lock within 50 ms .* delete the lock file$/)
  })
})

describe('in a matcher', () => {
  it('a corrupt cassette fails the assertion with the cassette error, and no verdict is made', async () => {
    const testPath = join(tempDir(), 'rubric.test.ts')
    const cassette = cassettePathFor(testPath)
    mkdirSync(join(cassette, '..'), { recursive: true })
    writeFileSync(cassette, '<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> branch\n')
    const judge = countingJudge({ scores: [1] })
    const task = { meta: {}, name: 'rubric' }
    const err = await rejectionOf(
      toSatisfyRubric.call({ isNot: false, testPath, task }, 'Sorry, order 12 is refunded.', 'Apologises.', { judge }),
      CassetteFormatError,
    )
    expect(err.message).toContain('unresolved git merge conflict markers')
    expect(err.message).not.toMatch(/unjudgeable|judge failed/i)
    expect(judge.calls).toHaveLength(0)
    expect(task.meta).toEqual({})
  })
})
