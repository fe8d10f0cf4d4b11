import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { jestTestKey, readJestVerdictLog } from '../../reporters/jest-log-reader'
import { jestVerdictLogPath, type JestVerdictLine } from '../../src/verdict/jest-log'
import { outputVerdicts } from '../report/cases'

const line = (over: Partial<JestVerdictLine> = {}): JestVerdictLine => ({
  testPath: '/repo/test/a.test.ts',
  fullName: 'suite works',
  verdicts: outputVerdicts(),
  ...over,
})

describe('readJestVerdictLog', () => {
  it('merges every worker file, keyed by test path + full name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-jestlog-'))
    appendFileSync(jestVerdictLogPath(dir, 101), JSON.stringify(line()) + '\n')
    appendFileSync(jestVerdictLogPath(dir, 202), JSON.stringify(line({ testPath: '/repo/test/b.test.ts' })) + '\n')
    const log = await readJestVerdictLog(dir)
    expect([...log.entries.keys()].sort()).toEqual([
      jestTestKey('/repo/test/a.test.ts', 'suite works'),
      jestTestKey('/repo/test/b.test.ts', 'suite works'),
    ])
    expect(log.warnings).toEqual([])
  })

  it('counts a partial last line and invalid lines as unjudgeable verdicts with a warning, keeping the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-jestlog-'))
    const good = JSON.stringify(line())
    const invalid = JSON.stringify({ ...line({ fullName: 'bad' }), verdicts: [{ metric: 'x' }] })
    writeFileSync(join(dir, '7.jsonl'), `${good}\nnot json\n${invalid}\n${good.slice(0, 40)}`)
    const log = await readJestVerdictLog(dir)
    expect(log.warnings).toEqual([
      '7.jsonl:2: a line that is not JSON: counted as one unjudgeable verdict',
      expect.stringMatching(/^7\.jsonl:3: invalid verdict line of "bad" at verdicts\.0\..*count as unjudgeable$/),
      '7.jsonl:4: a partial last line (a worker stopped mid-write): counted as one unjudgeable verdict',
    ])
    const outcomes = [...log.entries.values()].map((lines) => lines.flatMap((l) => l.verdicts.map((v) => v.outcome)))
    expect(outcomes).toEqual([
      outputVerdicts().map((v) => v.outcome),
      ['unjudgeable'],
      ['unjudgeable'],
      ['unjudgeable'],
    ])
    expect(log.entries.get(jestTestKey('/repo/test/a.test.ts', 'bad'))?.[0].verdicts[0]).toMatchObject({
      metric: 'x',
      outcome: 'unjudgeable',
    })
  })

  it('keeps every line of a key in order (attempts, or two tests sharing a full name), and reads a missing dir as empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-jestlog-'))
    const [fail, pass] = outputVerdicts()
    appendFileSync(
      jestVerdictLogPath(dir, 1),
      JSON.stringify(line({ verdicts: [fail] })) + '\n' + JSON.stringify(line({ verdicts: [pass] })) + '\n',
    )
    const log = await readJestVerdictLog(dir)
    expect(log.entries.get(jestTestKey('/repo/test/a.test.ts', 'suite works'))!.map((l) => l.verdicts)).toEqual([
      [fail],
      [pass],
    ])
    expect((await readJestVerdictLog(join(dir, 'nope'))).entries.size).toBe(0)
  })
})
