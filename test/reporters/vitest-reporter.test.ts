import { describe, expect, test } from 'vitest'
import type { Vitest } from 'vitest/node'
import AgentVerdictReporter from '../../reporters/vitest-reporter'

const vitest = { config: { root: process.cwd() } } as unknown as Vitest

describe('agent-verdict/reporter options', () => {
  test('an invalid option fails the run at onInit, naming it and the valid ones', async () => {
    const reporter = new AgentVerdictReporter({ outFile: 'r.json' } as never)
    await expect(reporter.onInit(vitest)).rejects.toThrow(/invalid option.*outFile.*Valid options: outputFile/)
    await expect(new AgentVerdictReporter({ html: true } as never).onInit(vitest)).rejects.toThrow(
      /invalid option html/,
    )
    await expect(new AgentVerdictReporter('r.json' as never).onInit(vitest)).rejects.toThrow(/invalid option/)
  })

  test('valid and default options pass onInit', async () => {
    await expect(new AgentVerdictReporter().onInit(vitest)).resolves.toBeUndefined()
    await expect(new AgentVerdictReporter({}).onInit(vitest)).resolves.toBeUndefined()
    await expect(
      new AgentVerdictReporter({ outputFile: 'r.json', html: 'r.html', silent: true }).onInit(vitest),
    ).resolves.toBeUndefined()
  })
})

describe('convertTest (a finished test for the report)', async () => {
  const { convertTest } = await import('../../reporters/vitest-reporter-run')
  const { VERDICT_META_KEY } = await import('../../src/verdict/meta')
  const testCase = (meta: unknown, state = 'passed') =>
    ({
      meta: () => (meta === undefined ? {} : { [VERDICT_META_KEY]: meta }),
      fullName: 'answers > total',
      result: () => ({ state, errors: state === 'failed' ? [{ message: '\u001b[31mboom\u001b[39m' }] : undefined }),
      diagnostic: () => ({ duration: 12 }),
      module: { moduleId: '/repo/evals/answers.eval.ts' },
    }) as never

  test('a test without verdicts is left out; one with verdicts keeps its state, file, duration and error', () => {
    expect(convertTest(testCase(undefined), '/repo')).toEqual({})
    const converted = convertTest(testCase({ verdicts: [] }, 'failed'), '/repo')
    expect(converted.test).toMatchObject({
      file: 'evals/answers.eval.ts',
      name: 'answers > total',
      state: 'fail',
      durationMs: 12,
      error: 'boom',
      verdicts: [],
    })
  })

  test('an invalid meta (user code wrote task.meta) counts as one unjudgeable verdict, with a warning naming the test and the field', () => {
    const converted = convertTest(testCase({ verdicts: 'not a list' }), '/repo')
    expect(converted.test?.verdicts).toMatchObject([{ outcome: 'unjudgeable', pass: false, score: null }])
    expect(converted.warning).toMatch(
      /invalid task\.meta\.\S+ of "answers > total" at verdicts: expected \{ verdicts: \[\.\.\.\] \}, got string: its invalid verdicts count as unjudgeable/,
    )
  })

  test('the end of the run converts again a test whose meta changed after it was converted (a late verdict)', async () => {
    const { endRun } = await import('../../reporters/vitest-reporter-run')
    const { outputVerdicts } = await import('../report/cases')
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const root = mkdtempSync(join(tmpdir(), 'av-late-verdict-'))
    try {
      const [verdict] = outputVerdicts()
      const late = testCase({ verdicts: [] })
      const converted = new Map([[late, convertTest(late, root)]])
      expect(converted.get(late)?.test?.verdicts).toEqual([])
      // A late verdict replaces the meta object, as Vitest's task update does.
      const updated = { verdicts: [verdict] }
      ;(late as { meta: () => unknown }).meta = () => ({ [VERDICT_META_KEY]: updated })
      await endRun({
        testModules: [{ children: { allTests: () => [late] } }] as never,
        vitest: { config: { root }, logger: { outputStream: { write() {} }, errorStream: { write() {} } } } as never,
        options: { silent: true },
        startedAt: new Date(),
        converted,
      })
      const report = JSON.parse(readFileSync(join(root, 'agent-verdict-report.json'), 'utf8'))
      expect(report.tests[0].verdicts).toHaveLength(1)
      expect(report.tests[0].verdicts[0].metric).toBe(verdict.metric)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
