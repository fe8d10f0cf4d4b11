// Runs both examples with their one-command runner against the fake judge, on the built package:
// every test passes, and the `.not` cases really were caught (their verdicts failed, per the rules).
import { existsSync, lstatSync, readlinkSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { readReport } from '../../src/report/artifact'
import { repo, run, usePackageUnderTest } from '../e2e/user-project'

const pkg = usePackageUnderTest()

afterAll(() => {
  for (const name of ['vitest-multimodal', 'jest-text']) {
    const link = join(repo, 'examples', name, 'node_modules', 'agent-verdict')
    // Leave no link to a temp build behind; the runner re-creates the repo link on its next run.
    if (
      existsSync(link) &&
      lstatSync(link).isSymbolicLink() &&
      resolve(dirname(link), readlinkSync(link)) !== resolve(repo)
    )
      rmSync(link)
  }
})

const cases = [
  {
    name: 'vitest-multimodal',
    tests: 8,
    caught: [
      'The answer says $15.20, but the chart shows North America at $14.10.',
      'The instruction asks for the region and the dollar amount; the answer gives only the region.',
      'The invoice states a 30-day term and a 2% monthly late fee; it offers no early-payment discount.',
      'The screen has no Create account button and no Google sign-in; only Email, Password, Sign in and Forgot password?.',
      'The instruction asks for the name only; the answer wraps it in a sentence.',
    ],
    verdicts: 15,
  },
  {
    name: 'jest-text',
    tests: 3,
    caught: ['The policy offers no store credit bonus; only refunds to the original payment method.'],
    verdicts: 6,
  },
]

describe.each(cases)('examples/$name', ({ name, tests, caught, verdicts }) => {
  test('passes in one command against the fake judge, with every wrong answer caught', async () => {
    const result = await run(repo, [join(repo, 'examples/run-example.mjs'), name, '--package', pkg.dir], {})
    expect(result.code, result.output).toBe(0)
    expect(result.output).toContain(`agent-verdict example ${name}: fake judge at http://127.0.0.1:`)
    expect(result.output).toContain(`agent-verdict example ${name}: ${verdicts} judge calls`)

    const report = await readReport(join(repo, 'examples', name, 'agent-verdict-report.json'))
    expect(report.tests).toHaveLength(tests)
    expect(report.tests.every((t) => t.state === 'pass')).toBe(true)
    const all = report.tests.flatMap((t) => t.verdicts)
    expect(all).toHaveLength(verdicts)
    expect(
      all
        .filter((v) => v.outcome === 'fail')
        .map((v) => v.reason)
        .sort(),
    ).toEqual([...caught].sort())
    expect(all.some((v) => v.outcome === 'unjudgeable')).toBe(false)
  })
})
