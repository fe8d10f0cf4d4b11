// Adversarial cassettes (issue 33, classes 1 and 15): an entry is replayed only as its reviewed lines say it.
// Editing only `output.score` (so CI would pass while the `verdicts` line still says fail), writing a score as a
// number JSON rounds (`0.99999999999999999`), or editing `provider`/`model` is refused with a CassetteError that
// names the entry and says to re-record; honest entries, and a threshold the test itself changed, still replay.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkReplayedEntries, labelRecordedEntries } from '../../runner/cassette-labels'
import { withCassette } from '../../src/cassette/cassette-judge'
import { CassetteError, CassetteFormatError } from '../../src/cassette/errors'
import { runInCassetteScope } from '../../src/cassette/scope'
import type { JudgeRequest } from '../../src/judges/types'
import type { Verdict } from '../../src/verdict/verdict'
import { rejectionOf } from '../helpers/rejection'
import { countingJudge, tempDir, verdictRequest, type VerdictOutput } from './helpers'

const TEST = 'refund answers › names the refund amount'

/** The matcher's reading of a reply: likert5, passing at `min` (default 4). */
function verdictOf(output: VerdictOutput, min = 4): Verdict {
  const threshold = (min - 1) / 4
  const score = (output.score - 1) / 4
  const pass = score >= threshold
  return {
    metric: 'correctness',
    level: 'output',
    scale: 'likert5',
    raw: output.score,
    score,
    threshold,
    pass,
    outcome: pass ? 'pass' : 'fail',
    reason: output.reasoning,
  }
}

/** One matcher call as attachVerdicts makes it: judge in the test's scope, check replayed entries, label recorded ones. */
async function matcherCall(file: string, mode: 'auto' | 'replay', request: JudgeRequest<VerdictOutput>, min = 4) {
  const judge = withCassette(countingJudge({ scores: [2] }), { file, mode })
  const verdict = await runInCassetteScope({ test: TEST, matcher: 'toBeCorrect' }, async () => {
    const v = verdictOf((await judge.evaluate(request)).output, min)
    checkReplayedEntries([v])
    labelRecordedEntries([v])
    return v
  })
  await judge.flush()
  return verdict
}

async function recorded(): Promise<{ file: string; text: string; request: JudgeRequest<VerdictOutput> }> {
  const file = join(tempDir(), 'refund.test.ts.json')
  const request = verdictRequest('Is the refund amount right?')
  expect((await matcherCall(file, 'auto', request)).outcome).toBe('fail')
  const text = readFileSync(file, 'utf8')
  expect(text).toContain('"outcome":"fail","score":"2/5","threshold":"min 4"')
  return { file, text, request }
}

describe('a cassette entry replays only as its reviewed lines say', () => {
  it('control: an honest entry replays its failing verdict', async () => {
    const { file, request } = await recorded()
    expect((await matcherCall(file, 'replay', request)).outcome).toBe('fail')
  })

  it('control: a threshold the test changed replays (same score, the outcome follows the test)', async () => {
    const { file, request } = await recorded()
    expect((await matcherCall(file, 'replay', request, 2)).outcome).toBe('pass')
  })

  it('only output.score edited (2 → 5) while the verdict line says fail: refused, naming the entry', async () => {
    const { file, text, request } = await recorded()
    writeFileSync(file, text.replace('"score":2}', '"score":5}'))
    const error = await rejectionOf(matcherCall(file, 'replay', request), CassetteError)
    expect(error.message).toContain(`test "${TEST}" › toBeCorrect › faithfulness`)
    expect(error.message).toMatch(/says correctness fail 2\/5, but its recorded output reads correctness pass 5\/5/)
    expect(error.message).toContain('vitest -u')
  })

  it('only the verdict line edited (fail → pass): refused too', async () => {
    const { file, text, request } = await recorded()
    writeFileSync(file, text.replace('"outcome":"fail","score":"2/5"', '"outcome":"pass","score":"5/5"'))
    await expect(matcherCall(file, 'replay', request)).rejects.toThrow(CassetteError)
  })

  it.each([
    ['provider', '"provider": "fake"', '"provider": "openai"'],
    ['model', '"model": "judge-1"', '"model": "judge-2"'],
  ])('an edited %s does not replay', async (_field, from, to) => {
    const { file, text, request } = await recorded()
    expect(text).toContain(from)
    writeFileSync(file, text.replace(from, to))
    const error = await rejectionOf(matcherCall(file, 'replay', request), CassetteError)
    expect(error.message).toMatch(/says it was judged by .*, but this test's judge is fake:judge-1/)
  })

  it.each([
    ['the score 5 spelled 5.0', '"score":5.0}'],
    ['the score 5 spelled 5e0', '"score":5e0}'],
    ['a second score key after the recorded one', '"score":2,"score":5}'],
  ])('round 3: %s while the verdict line says fail is refused', async (_what, edit) => {
    const { file, text, request } = await recorded()
    writeFileSync(file, text.replace('"score":2}', edit))
    await expect(matcherCall(file, 'replay', request)).rejects.toThrow(CassetteError)
  })

  it('round 3 control: the recorded score respelled 2.0 replays its failing verdict', async () => {
    const { file, text, request } = await recorded()
    writeFileSync(file, text.replace('"score":2}', '"score":2.0}'))
    expect((await matcherCall(file, 'replay', request)).outcome).toBe('fail')
  })

  it('round 3: a provider whose case differs does not replay', async () => {
    const { file, text, request } = await recorded()
    writeFileSync(file, text.replace('"provider": "fake"', '"provider": "Fake"'))
    await expect(matcherCall(file, 'replay', request)).rejects.toThrow(CassetteError)
  })

  it.each(['4.9999999999999999', '5.0000000000000001', '1e-400'])(
    'a score written %s (a number JSON rounds) is refused as written, naming the line and entry',
    async (token) => {
      const { file, text, request } = await recorded()
      writeFileSync(file, text.replace('"score":2}', `"score":${token}}`))
      const error = await rejectionOf(matcherCall(file, 'replay', request), CassetteFormatError)
      expect(error.message).toMatch(
        new RegExp(`line \\d+ \\(entry [0-9a-f]{12}…\\) writes the number ${token.replace('.', '\\.')}`),
      )
    },
  )
})
