// Errors of async matchers end in the user's test line, as the runners' own matchers do: after an
// `await` inside a matcher the stack no longer reaches the test, so the call site is appended.
import '../../matchers/vitest'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { atCallSite, withCallSite } from '../../runner/call-site'
import { registerSecret } from '../../src/config/secrets'
import { loadTrace } from '../../src/trace/load'
import { GAIA_SUBAGENT } from '../matchers/trace/helpers'
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

// What a matcher hands the runner to print is the user's own text as often as ours: a key in the judged
// output, a token in a tool call's arguments. It is scrubbed as the verdicts are (decision 0017).
describe('atCallSite scrubs what the runner prints', () => {
  const KEY = 'printed-secret-5e4d3c2b'
  registerSecret(KEY)

  test('an async result: the message (read lazily) and actual/expected', async () => {
    const matcher = atCallSite(async () => ({
      pass: false,
      message: () => `Received: "the agent said ${KEY}"`,
      actual: [{ name: 'call_api', args: { token: KEY } }],
      expected: { name: 'call_api' },
      meta: { kept: true },
    }))
    const result = (await matcher()) as { message: () => string; actual: unknown; meta: unknown; pass: boolean }
    expect(result.pass).toBe(false)
    expect(result.message()).toBe('Received: "the agent said [redacted]"')
    expect(JSON.stringify(result.actual)).not.toContain(KEY)
    expect(result.meta).toEqual({ kept: true })
  })

  test('a synchronous result and errors thrown or rejected', async () => {
    const sync = atCallSite(() => ({ pass: false, message: () => `args ${KEY}` }))
    expect((sync() as { message: () => string }).message()).toBe('args [redacted]')
    const throws = atCallSite(() => {
      throw new TypeError(`bad input ${KEY}`)
    })
    expect(() => throws()).toThrow('bad input [redacted]')
    const rejects = atCallSite(async () => {
      throw new Error(`judge quoted ${KEY}`)
    })
    const error = await caught(rejects())
    expect(error.message).toBe('judge quoted [redacted]')
    expect(error.stack).not.toContain(KEY)
  })

  test('the real matchers: a failing toCallTool does not print a secret from the tool arguments', async () => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    // Stands for a token in a tool call's arguments: this trace's audio file id.
    registerSecret('1f975693-876d-457b-a649-393859e79bf3')
    let message = ''
    try {
      expect(trace).toCallTool('send_email')
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain('inspect_file_as_text {"file_path":"data/gaia/validation/[redacted].mp3"')
    expect(message).not.toContain('1f975693-876d')
  })
})
