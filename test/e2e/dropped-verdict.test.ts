// Issue 33 class 13 on the built package: a passing verdict whose usage is invalid (completion tokens -1) used
// to be dropped by the reporter ("ignored invalid task.meta"), so maxCostUsd read 0 and the run stayed green.
// Real Vitest and Jest runs of user projects: it must count as unjudgeable and break the gates.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readReport } from '../../src/report/artifact'
import { makeProject, repo, run, usePackageUnderTest } from './user-project'

const cleanup: string[] = []
const pkg = usePackageUnderTest()

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

describe.each([
  {
    runner: 'vitest',
    fixture: 'dropped-verdict-vitest',
    deps: ['vitest'],
    args: [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'],
  },
  {
    runner: 'jest',
    fixture: 'dropped-verdict-jest',
    deps: ['jest'],
    args: [join(repo, 'node_modules/jest/bin/jest.js'), '--runInBand', '--cacheDirectory', '.jest-cache'],
  },
])('$runner reporter gates on a dropped verdict', ({ fixture, deps, args }) => {
  let project: string
  beforeAll(() => {
    project = makeProject(fixture, pkg.dir, deps)
    cleanup.push(project)
  })

  it('control: the valid verdict holds both gates and the run is green', async () => {
    const result = await run(project, args, { AV_BROKEN: '0' })
    expect(result.output).toContain('agent-verdict: gate maxCostUsd ok: judge cost USD 0.0004 ≤ 1')
    expect(result.code, result.output).toBe(0)
  }, 180_000)

  it('a verdict with completion tokens -1 counts as unjudgeable: both gates break and the run is red', async () => {
    const result = await run(project, args, { AV_BROKEN: '1' })
    expect(result.output).toMatch(/invalid task\.meta\.agentVerdict|invalid verdict line/)
    expect(result.output).toContain('agent-verdict: gate maxUnjudgeable broken: unjudgeable verdicts 1 > 0')
    expect(result.output).toMatch(
      /agent-verdict: gate maxCostUsd broken: judge cost USD unknown > 1 \(1 verdict\(s\) have unknown token counts/,
    )
    expect(result.code, result.output).toBe(1)
    const report = await readReport(join(project, 'agent-verdict-report.json'))
    expect(report.run.totals).toMatchObject({ verdicts: 1, unjudgeable: 1, costUsd: null })
  }, 180_000)
})
