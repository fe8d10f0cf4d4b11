// Errors of async matchers end in the user's test line, as the runners' own matchers do: after an
// `await` inside a matcher the stack no longer reaches the test, so the call site is appended.
import '../../matchers/vitest'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { atCallSite, withCallSite } from '../../matchers/call-site'
import { CassetteMissError } from '../../src/cassette/errors'
import { countingJudge } from '../cassette/helpers'

const THIS_FILE = /call-site\.test\.ts:(\d+):\d+/

/** A matcher that fails the way real ones do: in a callback of a judge reply, so no frame of the caller is left. */
function failsLater(): Promise<never> {
  return new Promise((resolve) => setTimeout(resolve, 1)).then(function failsLater() {
    throw new TypeError('judge gave up')
  })
}

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e: unknown) => e as Error,
  )

describe('atCallSite', () => {
  test('the stack keeps the message and the matcher frames, then ends in the calling line', async () => {
    const matcher = atCallSite(failsLater)
    const line = Number(new Error().stack!.match(THIS_FILE)![1]) + 1
    const error = await caught(matcher())
    expect(error).toBeInstanceOf(TypeError)
    const frames = error.stack!.split('\n')
    expect(frames[0]).toBe('TypeError: judge gave up')
    expect(frames[1]).toMatch(/at failsLater .*call-site\.test\.ts/)
    const callerLines = frames.filter((f) => THIS_FILE.test(f)).map((f) => Number(f.match(THIS_FILE)![1]))
    expect(callerLines).toContain(line)
  })

  test('an error thrown before any await already passes through the caller: no frame is added twice', async () => {
    const failsNow = async () => {
      throw new TypeError('bad option')
    }
    const error = await caught(atCallSite(failsNow)())
    const ours = error.stack!.split('\n').filter((f) => THIS_FILE.test(f))
    expect(ours.length).toBeGreaterThan(0)
    expect(new Set(ours).size).toBe(ours.length)
    expect(withCallSite('not an error', new Error('site').stack)).toBe('not an error')
  })
})

describe('registered matchers', () => {
  afterEach(() => vi.unstubAllEnvs())

  const missUnderCi = () => {
    vi.stubEnv('CI', 'true')
    vi.stubEnv('AGENT_VERDICT_MODE', '')
    return countingJudge()
  }
  const linesOfThisFile = (error: Error) =>
    error
      .stack!.split('\n')
      .filter((f) => THIS_FILE.test(f))
      .map((f) => Number(f.match(THIS_FILE)![1]))

  test('registered, the same miss ends in the test line of the assertion', async () => {
    const judge = missUnderCi()
    const line = Number(new Error().stack!.match(THIS_FILE)![1]) + 1
    const error = await caught(
      expect('The total due is $1,926.00.').toBeCorrect({ reference: 'Total due: $1,296.00', judge }),
    )
    expect(error).toBeInstanceOf(CassetteMissError)
    expect(judge.calls).toHaveLength(0)
    expect(linesOfThisFile(error)).toContain(line)
  })
})
