// Runs Vitest as a user would (setupFiles: our entry) on fixture test files in a scratch project
// under .tmp/, in a child process, and returns the JSON reporter's results with each test's meta.
import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)))

export interface FixtureTestResult {
  title: string
  fullName: string
  status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo'
  failureMessages: string[]
  meta: Record<string, unknown>
}

export interface VitestRun {
  code: number | null
  stdout: string
  stderr: string
  tests: FixtureTestResult[]
}

/** A scratch project inside the repo (so `vitest` and `openai` resolve from its node_modules). */
export function makeScratchProject(prefix: string): string {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(REPO, '.tmp', `${prefix}-`))
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { include: ['**/*.test.ts'], setupFiles: [${JSON.stringify(join(REPO, 'matchers/vitest.ts'))}], testTimeout: 20000 } }\n`,
  )
  return dir
}

/** Copies a fixture from test/matchers/fixtures/vitest into the project as `<name>.test.ts`. */
export function addFixture(
  dir: string,
  fixture: string,
  as = basename(fixture).replace(/\.fixture\.ts$/, '.test.ts'),
): string {
  const target = join(dir, as)
  copyFileSync(join(REPO, 'test/matchers/fixtures/vitest', fixture), target)
  return target
}

/** Runs `vitest run` in the project with exactly the env given (plus PATH/HOME), never the parent's Vitest env. */
export async function runVitest(dir: string, env: Record<string, string>, args: string[] = []): Promise<VitestRun> {
  const out = join(dir, `result-${Date.now()}-${Math.random().toString(36).slice(2)}.json`)
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NO_COLOR: '1',
    ...env,
  }
  const child = spawn(
    process.execPath,
    [
      join(REPO, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--root',
      dir,
      '--config',
      join(dir, 'vitest.config.mjs'),
      '--reporter=json',
      `--outputFile=${out}`,
      ...args,
    ],
    { cwd: dir, env: childEnv },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((done) => child.on('close', done))
  let tests: FixtureTestResult[] = []
  try {
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      testResults: Array<{ assertionResults: FixtureTestResult[] }>
    }
    tests = report.testResults.flatMap((f) => f.assertionResults)
  } catch {
    throw new Error(`vitest wrote no JSON report (exit ${code})\nstdout:\n${stdout}\nstderr:\n${stderr}`)
  }
  return { code, stdout, stderr, tests }
}

/** The result of one test by title; throws listing the titles when missing. */
export function byTitle(run: VitestRun, title: string): FixtureTestResult {
  const found = run.tests.find((t) => t.title === title)
  if (!found) throw new Error(`no test "${title}" in: ${run.tests.map((t) => t.title).join(', ')}`)
  return found
}
