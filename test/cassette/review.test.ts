// Cassettes are reviewed in pull requests: entries named by test › matcher, the verdicts beside the raw
// reply, no churn when a re-record changes nothing, and a flipped verdict as a small named diff.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { labelRecordedEntries } from '../../runner/cassette-labels'
import { withCassette } from '../../src/cassette/cassette-judge'
import { CassetteMissError } from '../../src/cassette/errors'
import { runInCassetteScope } from '../../src/cassette/scope'
import { readCassette } from '../../src/cassette/store'
import type { JudgeRequest } from '../../src/judges/types'
import type { Verdict } from '../../src/verdict/verdict'
import { rejectionOf } from '../helpers/rejection'
import { countingJudge, tempDir, verdictRequest, type CountingJudge, type VerdictOutput } from './helpers'

const TEST = 'refund answers › names the refund amount'

/** What a matcher does with a reply: a likert5 verdict passing at 4/5 (threshold 0.75), carrying the judged text. */
function verdictOf(output: VerdictOutput, subject: string): Verdict {
  const score = (output.score - 1) / 4
  const pass = score >= 0.75
  return {
    metric: 'correctness',
    level: 'output',
    scale: 'likert5',
    raw: output.score,
    score,
    threshold: 0.75,
    pass,
    outcome: pass ? 'pass' : 'fail',
    reason: output.reasoning,
    subject,
  }
}

/** One matcher call: judge inside the test's scope, then label the entries as `attachVerdicts` does. */
async function matcherCall(
  judge: CountingJudge,
  file: string,
  mode: 'auto' | 'record' | 'replay',
  request: JudgeRequest<VerdictOutput>,
  now: string,
) {
  const cassette = withCassette(judge, { file, mode, now: () => new Date(now) })
  await runInCassetteScope({ test: TEST, matcher: 'toBeCorrect' }, async () => {
    const reply = await cassette.evaluate(request)
    labelRecordedEntries([
      verdictOf(reply.output, 'Your refund of $40 was issued on 3 March.\nIt will show in 5 days.'),
    ])
  })
  await cassette.flush()
}

/** Lines that differ between two texts of equal line count (a re-record with the same keys). */
function changedLines(before: string, after: string): string[] {
  const a = before.split('\n')
  const b = after.split('\n')
  expect(b).toHaveLength(a.length)
  return b.filter((line, i) => line !== a[i])
}

describe('reviewable entries', () => {
  it('names the test and matcher, shows a judged excerpt and the verdict on its scale', async () => {
    const file = join(tempDir(), 'refund.test.ts.json')
    await matcherCall(
      countingJudge({ scores: [5] }),
      file,
      'auto',
      verdictRequest('Is the refund amount right?'),
      '2026-03-18T09:30:00Z',
    )
    const [entry] = Object.values((await readCassette(file)).entries)
    expect(entry).toMatchObject({
      test: TEST,
      matcher: 'toBeCorrect',
      judged: 'Your refund of $40 was issued on 3 March. It will show in 5 days.',
      verdicts: [
        {
          metric: 'correctness',
          outcome: 'pass',
          score: '5/5',
          threshold: 'min 4',
          reason: expect.stringContaining('judged: '),
        },
      ],
    })
    expect(readFileSync(file, 'utf8')).toContain(
      `      "test": "${TEST}", "matcher": "toBeCorrect",\n      "verdicts": [\n`,
    )
  })

  it('re-recording unchanged verdicts leaves the file byte for byte as it was (no new date, no latency)', async () => {
    const file = join(tempDir(), 'refund.test.ts.json')
    const requests = ['amount', 'date', 'channel'].map((q) => verdictRequest(`Is the refund ${q} right?`))
    for (const r of requests) await matcherCall(countingJudge({ scores: [5] }), file, 'auto', r, '2026-03-18T09:30:00Z')
    const before = readFileSync(file, 'utf8')
    const judge = countingJudge({ scores: [5] })
    for (const r of requests) await matcherCall(judge, file, 'record', r, '2026-05-01T12:00:00Z')
    expect(judge.calls).toHaveLength(3) // it really re-judged
    expect(readFileSync(file, 'utf8')).toBe(before)
  })

  it('a flipped verdict is a few changed lines whose context names the test, with the metric and the new reason', async () => {
    const file = join(tempDir(), 'refund.test.ts.json')
    const requests = ['amount', 'date', 'channel'].map((q) => verdictRequest(`Is the refund ${q} right?`))
    for (const r of requests) await matcherCall(countingJudge({ scores: [5] }), file, 'auto', r, '2026-03-18T09:30:00Z')
    const before = readFileSync(file, 'utf8')
    await matcherCall(countingJudge({ scores: [2] }), file, 'record', requests[1], '2026-05-01T12:00:00Z')
    const after = readFileSync(file, 'utf8')
    const changed = changedLines(before, after)
    // The verdict line, the raw reply and the date of the new recording: nothing else moves.
    expect(changed).toHaveLength(3)
    expect(changed[0]).toMatch(
      /^ {8}\{"metric":"correctness","outcome":"fail","score":"2\/5","threshold":"min 4","reason":"judged: .*date/,
    )
    expect(changed[1]).toContain('"output": {"reasoning":')
    expect(changed[2]).toContain('"recordedAt": "2026-05-01T12:00:00.000Z"')
    // git diff shows 3 lines of context: the test's name is among them.
    const lines = after.split('\n')
    const first = lines.indexOf(changed[0])
    expect(lines.slice(first - 3, first).join('\n')).toContain(`"test": "${TEST}"`)
  })

  it('a replay miss names the test and matcher that needs recording', async () => {
    const file = join(tempDir(), 'refund.test.ts.json')
    const cassette = withCassette(countingJudge(), { file, mode: 'replay' })
    const error = await rejectionOf(
      runInCassetteScope({ test: TEST, matcher: 'not.toBeCorrect' }, () =>
        cassette.evaluate(verdictRequest('new question')),
      ),
      CassetteMissError,
    )
    expect(error.message).toContain(`no recorded verdict for faithfulness (test "${TEST}" › not.toBeCorrect) in `)
    expect(error).toMatchObject({ test: TEST, matcher: 'not.toBeCorrect' })
  })

  it('replay never writes, even to label entries recorded before labels existed', async () => {
    const file = join(tempDir(), 'refund.test.ts.json')
    const request = verdictRequest('Is the refund amount right?')
    await withCassette(countingJudge({ scores: [5] }), { file, mode: 'auto' }).evaluate(request) // outside any matcher: no labels
    const before = readFileSync(file, 'utf8')
    await matcherCall(countingJudge(), file, 'replay', request, '2026-05-01T12:00:00Z')
    expect(readFileSync(file, 'utf8')).toBe(before)
    expect(before).not.toContain('"test"')
  })
})
