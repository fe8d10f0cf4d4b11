// Decision 0043 (c): a request the judge gave no valid verdict for while recording is recorded as unjudgeable, so CI
// replays the same outcome instead of missing; a run that may record asks the judge again.
import { describe, expect, it } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { cassettePathFor, readCassette } from '../../src/cassette/store'
import { registerSecret } from '../../src/config/secrets'
import { JudgeOutputError, JudgeServiceError } from '../../src/judges/errors'
import { callJudge } from '../../src/judges/judge-call'
import type { Judge, JudgeRequest, JudgeResponse } from '../../src/judges/types'
import { CassetteMissError } from '../../src/cassette/errors'
import { join } from 'node:path'
import { countingJudge, fixedNow, tempDir, verdictRequest } from './helpers'

const SECRET = 'sk-unjudgeable-test-0123456789abcdef'

/** A judge whose `failing`-th calls (1-based) reply with no valid verdict; the others answer as countingJudge. */
function flakyJudge(failing: ReadonlySet<number>, error: () => Error = outputError): Judge & { calls: number } {
  const inner = countingJudge()
  const judge = {
    id: inner.id,
    provider: inner.provider,
    model: inner.model,
    calls: 0,
    async evaluate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
      judge.calls++
      if (failing.has(judge.calls)) throw error()
      return inner.evaluate(request)
    },
  }
  return judge
}
const outputError = () =>
  new JudgeOutputError(`fake:judge-1 replied with no valid verdict: not JSON (key ${SECRET})`, {
    provider: 'fake',
    model: 'judge-1',
    raw: `I refuse. ${SECRET}`,
    usage: { inputTokens: 40, outputTokens: 3 },
  })

const newCassette = () => cassettePathFor(join(tempDir(), 'unjudgeable.test.ts'))

describe('a reply with no valid verdict while recording', () => {
  it('is recorded as unjudgeable, says why without the secret, and replays in CI as the same failure with no call', async () => {
    registerSecret(SECRET)
    const file = newCassette()
    const request = verdictRequest('Is the refund right?')
    const recording = flakyJudge(new Set([1]))
    const recorded = await callJudge(withCassette(recording, { file, mode: 'auto', now: fixedNow }), request)
    expect(recorded.status).toBe('unjudgeable')

    const text = await import('node:fs').then((fs) => fs.readFileSync(file, 'utf8'))
    expect(text).not.toContain(SECRET)
    const [entry] = Object.values((await readCassette(file)).entries)
    expect(entry).toMatchObject({
      unjudgeable: { error: 'JudgeOutputError', reason: expect.stringContaining('no valid verdict: not JSON') },
      output: null,
      usage: { inputTokens: 40, outputTokens: 3 },
    })

    const ci = flakyJudge(new Set())
    const replayed = await callJudge(withCassette(ci, { file, env: { CI: 'true' } }), request)
    expect(ci.calls).toBe(0)
    expect(replayed.status).toBe('unjudgeable')
    if (replayed.status !== 'unjudgeable') return
    expect(replayed.error).toBeInstanceOf(JudgeOutputError)
    expect(replayed.error.replayed).toBe(true)
    expect(replayed.cause).toContain('no valid verdict: not JSON')
    expect(replayed.cause).toContain('asks it again')
  })

  it('is asked again by a later auto run, whose valid verdict replaces the entry', async () => {
    const file = newCassette()
    const request = verdictRequest('Is the refund right?')
    await callJudge(withCassette(flakyJudge(new Set([1])), { file, mode: 'auto' }), request)
    const retry = flakyJudge(new Set())
    const again = await callJudge(withCassette(retry, { file, mode: 'auto' }), request)
    expect(retry.calls).toBe(1)
    expect(again.status).toBe('ok')
    const [entry] = Object.values((await readCassette(file)).entries)
    expect(entry.unjudgeable).toBeUndefined()
    expect(entry.output).toMatchObject({ score: expect.any(Number) })
  })

  it('keeps self-consistency replayable: 1 of 3 samples unjudgeable locally gives the same verdict in CI', async () => {
    const file = newCassette()
    const request = verdictRequest('Is the refund right?')
    const options = { samples: 3, aggregate: 'median' as const }
    const local = await callJudge(withCassette(flakyJudge(new Set([2])), { file, mode: 'auto' }), request, options)
    expect(local.status).toBe('ok')
    expect(Object.keys((await readCassette(file)).entries)).toHaveLength(3)

    const ci = flakyJudge(new Set())
    const replayed = await callJudge(withCassette(ci, { file, env: { CI: 'true' } }), request, options)
    expect(ci.calls).toBe(0)
    expect(replayed.status).toBe('ok')
    if (replayed.status !== 'ok' || local.status !== 'ok') return
    expect(replayed.samples).toEqual(local.samples)
    expect(replayed.errors?.map((e) => e.replayed)).toEqual([true])
  })

  it('a failure that says nothing about the request (5xx, network, throttling) is not recorded: CI still misses', async () => {
    const file = newCassette()
    const request = verdictRequest('Is the refund right?')
    const down = flakyJudge(
      new Set([1]),
      () => new JudgeServiceError('fake:judge-1 answered 503', { provider: 'fake', model: 'judge-1', status: 503 }),
    )
    expect((await callJudge(withCassette(down, { file, mode: 'auto' }), request)).status).toBe('unjudgeable')
    await expect(withCassette(flakyJudge(new Set()), { file, env: { CI: 'true' } }).evaluate(request)).rejects.toThrow(
      CassetteMissError,
    )
  })
})
