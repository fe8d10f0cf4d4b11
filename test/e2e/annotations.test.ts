// Verdicts as Vitest test annotations (issue 15, item 3; decision 0026), through the real Vitest CLI
// with only Vitest's own reporters: the JUnit file carries each verdict as a <property>, the
// github-actions reporter prints a workflow command per verdict at the awaited expect line. On a current runtime
// (runtime.ts: Node 24, Vitest 5) the project is a user project with the built package; on the default one, a
// scratch project on the sources, as before.
import { spawn } from 'node:child_process'
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { REPO, makeScratchProject } from '../support/run-vitest'
import { e2eEnv, e2eNode, runtimeDir, vitestCli as projectVitest } from './runtime'
import { makeProject, packageUnderTest } from './user-project'

let fake: FakeJudge
const dirs: string[] = []
const FAIL_REASON = 'The context says North America leads, & EMEA is second.'

beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [
      { name: 'emea', when: { contains: 'EMEA has the highest' }, respond: { verdict: 'fail', reason: FAIL_REASON } },
    ],
    defaultVerdict: { verdict: 'pass', reason: 'Stated in the context.' },
  })
  if (runtimeDir) {
    const pkg = await packageUnderTest()
    packageDir = pkg.dir
    if (pkg.built === 'private build') dirs.push(pkg.dir)
  }
}, 120_000)

let packageDir: string
/** The project: the built package and the runtime's Vitest on a current runtime, the sources otherwise. */
const makeAnnotationsProject = () =>
  runtimeDir ? makeProject('annotations', packageDir, ['vitest']) : makeScratchProject('annotations')
/** A setup entry as the config names it: the package's (`agent-verdict/vitest`) or the source file. */
const setupFile = (entry: 'vitest' | 'vitest-setup') =>
  runtimeDir ? `agent-verdict/${entry}` : join(REPO, `matchers/${entry}.ts`)
/** `vitest run` with only Vitest's own reporters (run-vitest.ts adds its JSON reporter, which would take `--outputFile`). */
function vitestCli(
  dir: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const vitest = runtimeDir ? projectVitest(dir) : join(REPO, 'node_modules/vitest/vitest.mjs')
  const child = spawn(e2eNode(), [vitest, 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')], {
    cwd: dir,
    env: e2eEnv({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env }),
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })))
}

afterAll(async () => {
  await fake.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('verdicts in Vitest’s own reporters, no agent-verdict reporter configured', () => {
  test('JUnit properties and github-actions annotations: every verdict with all, failing ones by default, none with off', async () => {
    const dir = makeAnnotationsProject()
    dirs.push(dir)
    const file = join(dir, 'annotations.test.ts')
    copyFileSync(join(REPO, 'test/e2e/fixtures/annotations/vitest.fixture.ts'), file)
    const junit = join(dir, 'junit.xml')
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { include: ['**/*.test.ts'], setupFiles: [${JSON.stringify(setupFile('vitest'))}], testTimeout: 20000, ` +
        `reporters: ['junit', 'github-actions'], outputFile: { junit: ${JSON.stringify(junit)} } } }\n`,
    )
    const run = await vitestCli(dir, {
      AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
      AGENT_VERDICT_MODE: 'live',
      AGENT_VERDICT_ANNOTATIONS: 'all',
    })
    expect(run.code, run.stderr).toBe(1) // the failing verdict fails its test

    // Lines of the awaited expect(…) calls in the fixture.
    const source = readFileSync(file, 'utf8').split('\n')
    const lineOf = (needle: string) => source.findIndex((l) => l.includes(needle)) + 1
    const passLine = lineOf("await expect('Paris")
    const failLine = lineOf("await expect('EMEA")

    const commands = run.stdout.split('\n').filter((l) => l.startsWith('::') && l.includes('agent-verdict'))
    expect(commands).toEqual([
      `::notice file=${file},line=${passLine},column=3::agent-verdict faithfulness: pass — Stated in the context.`,
      `::error file=${file},line=${failLine},column=3::agent-verdict faithfulness: fail — ${FAIL_REASON}`,
    ])

    const xml = readFileSync(junit, 'utf8')
    const caseOf = (name: string) =>
      xml.slice(xml.indexOf(`name="${name}"`), xml.indexOf('</testcase>', xml.indexOf(`name="${name}"`)))
    expect(caseOf('passing verdict')).toContain(
      '<property name="notice" value="agent-verdict faithfulness: pass — Stated in the context.">',
    )
    // XML-escaped by Vitest: the judged text and the reason cannot break the file.
    expect(caseOf('failing verdict')).toContain(
      '<property name="error" value="agent-verdict faithfulness: fail — The context says North America leads, &amp; EMEA is second.">',
    )
    expect(caseOf('failing verdict')).toContain('<failure')

    // The default: the failing verdict only (a passing one would make its test wait for a round trip to the
    // main process, decision 0031).
    const byDefault = await vitestCli(dir, {
      AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
      AGENT_VERDICT_MODE: 'live',
    })
    expect(byDefault.code).toBe(1)
    expect(byDefault.stdout.split('\n').filter((l) => l.startsWith('::') && l.includes('agent-verdict'))).toEqual([
      `::error file=${file},line=${failLine},column=3::agent-verdict faithfulness: fail — ${FAIL_REASON}`,
    ])
    const defaultXml = readFileSync(junit, 'utf8')
    expect(defaultXml).toContain('<property name="error" value="agent-verdict faithfulness: fail')
    expect(defaultXml).not.toContain('<property name="notice"')

    // Through agent-verdict/vitest-setup (the plugin's setup file), whose matchers are stand-ins that load the
    // real ones: the annotations still point at the awaited expect(…) lines.
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { include: ['**/*.test.ts'], setupFiles: [${JSON.stringify(setupFile('vitest-setup'))}], testTimeout: 20000, ` +
        `reporters: ['junit', 'github-actions'], outputFile: { junit: ${JSON.stringify(junit)} } } }\n`,
    )
    const light = await vitestCli(dir, {
      AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
      AGENT_VERDICT_MODE: 'live',
      AGENT_VERDICT_ANNOTATIONS: 'all',
    })
    expect(light.code, light.stderr).toBe(1)
    expect(light.stdout.split('\n').filter((l) => l.startsWith('::') && l.includes('agent-verdict'))).toEqual(commands)

    // Switched off: the same run gives no annotation, the test still fails on its verdict.
    const off = await vitestCli(dir, {
      AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
      AGENT_VERDICT_MODE: 'live',
      AGENT_VERDICT_ANNOTATIONS: 'off',
    })
    expect(off.code).toBe(1)
    expect(off.stdout).not.toContain('::notice')
    expect(off.stdout).toMatch(/::error file=.*title=annotations\.test\.ts > failing verdict/)
    expect(readFileSync(junit, 'utf8')).not.toContain('<property')
  })
})
