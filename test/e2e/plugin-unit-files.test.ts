// Issue 18, "setup that costs what it uses": with the plugin, an ordinary unit test file that names no matcher
// and does not import agent-verdict loads none of the matchers' code. Its cost: a synchronous matcher reached
// only through a helper module must say what to do instead of answering. A file naming the matcher is unchanged.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeProject, repo, run, usePackageUnderTest } from './user-project'

let project: string
const cleanup: string[] = []

const pkg = usePackageUnderTest()

beforeAll(async () => {
  project = makeProject('plugin-unit', pkg.dir, ['vitest'])
  cleanup.push(project)
}, 120_000)

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

// The second step edits the project the first ran, so the steps keep their order when CI shuffles.
describe('agent-verdict/vitest-plugin with ordinary unit test files', { shuffle: false }, () => {
  it('loads the matchers for the file that names one; a file that names none gets a message saying what to add', async () => {
    const result = await run(project, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'], {})
    expect(result.code, result.output).toBe(1)
    // named.test.ts: toCallTool answers synchronously, directly and through the helper.
    expect(result.output).toMatch(/✓ named\.test\.ts \(1 test\)/)
    // unit.test.ts: the plain test passes; the helper's toCallTool explains itself.
    expect(result.output).toMatch(/unit\.test\.ts \(2 tests \| 1 failed\)/)
    expect(result.output).toContain(
      "toCallTool was called before agent-verdict loaded its code. The setup loads it before the first test of a file that names toCallTool or imports agent-verdict: call it inside a test or hook, and if the call comes from a helper module, add `import 'agent-verdict/vitest'` to the test file",
    )
  }, 120_000)

  it('the fix the message names works: importing agent-verdict/vitest in the test file', async () => {
    const file = join(project, 'unit.test.ts')
    writeFileSync(file, `import 'agent-verdict/vitest'\n${readFileSync(file, 'utf8')}`)
    const result = await run(project, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'], {})
    expect(result.code, result.output).toBe(0)
    expect(result.output).toMatch(/Tests\s+3 passed \(3\)/)
  }, 120_000)

  it('without isolation, one worker runs every file and sets up each: verdicts reach their tests, eval files run concurrently', async () => {
    // The setup's code is imported once per worker (natively); what a file needs (matchers, hooks, an eval file's
    // concurrency) is done per file by the setup entry's one call. Without isolation the files after the first
    // share the worker, and must get it too. Each eval file checks that its two tests overlapped.
    const evalFile = `import { afterAll, expect, test } from 'vitest'
let inFlight = 0
let peak = 0
const overlapping = async () => {
  inFlight++
  peak = Math.max(peak, inFlight)
  await new Promise((r) => setTimeout(r, 100))
  inFlight--
}
test('one', overlapping)
test('two', overlapping)
afterAll(() => expect(peak, 'tests in flight at once').toBe(2))
`
    for (const name of ['a.eval.ts', 'b.eval.ts']) writeFileSync(join(project, name), evalFile)
    const out = join(project, 'results.json')
    const result = await run(
      project,
      [
        join(repo, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--no-isolate',
        '--maxWorkers=1',
        '--reporter=json',
        `--outputFile=${out}`,
      ],
      {},
    )
    expect(result.code, result.output).toBe(0)
    const json = JSON.parse(readFileSync(out, 'utf8')) as {
      numPassedTests: number
      testResults: Array<{
        name: string
        assertionResults: Array<{
          title: string
          meta?: { agentVerdict?: { verdicts: Array<{ metric: string; outcome: string }> } }
        }>
      }>
    }
    expect(json.numPassedTests).toBe(7)
    const verdicts = Object.fromEntries(
      json.testResults.flatMap((file) =>
        file.assertionResults
          .filter((t) => !['one', 'two'].includes(t.title))
          .map((t) => [t.title, (t.meta?.agentVerdict?.verdicts ?? []).map((v) => `${v.metric}:${v.outcome}`)]),
      ),
    )
    expect(verdicts).toEqual({
      'toCallTool in the test file': ['tool-call:pass', 'tool-call:pass'],
      'plain arithmetic': [],
      'a synchronous matcher reached only through a helper': ['tool-call:pass'],
    })
  }, 120_000)
})
