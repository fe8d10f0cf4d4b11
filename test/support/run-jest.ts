// Runs Jest as a user would (setupFilesAfterEnv: our entry, @swc/jest for TypeScript) on fixture
// test files in a scratch project under .tmp/, in a child process, and returns Jest's JSON results.
import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { REPO } from './run-vitest'

export interface JestTestResult {
  title: string
  fullName: string
  status: 'passed' | 'failed' | 'pending' | 'todo'
  failureMessages: string[]
}

export interface JestRun {
  code: number | null
  stdout: string
  stderr: string
  tests: JestTestResult[]
}

/** A scratch Jest project inside the repo (so jest, @swc/jest and the SDKs resolve). */
export function makeJestProject(prefix: string): string {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(REPO, '.tmp', `${prefix}-`))
  const config = {
    rootDir: dir,
    testMatch: ['**/*.test.ts'],
    testEnvironment: 'node',
    transform: { '^.+\\.(t|j)sx?$': '@swc/jest' },
    setupFilesAfterEnv: [join(REPO, 'matchers/jest.ts')],
  }
  writeFileSync(join(dir, 'jest.config.json'), `${JSON.stringify(config, null, 2)}\n`)
  return dir
}

/** Copies a fixture from test/matchers/fixtures/jest into the project as `<name>.test.ts`. */
export function addJestFixture(dir: string, fixture: string): string {
  const target = join(dir, basename(fixture).replace(/\.fixture\.ts$/, '.test.ts'))
  copyFileSync(join(REPO, 'test/matchers/fixtures/jest', fixture), target)
  return target
}

/** Runs Jest in the project with exactly the env given (plus PATH/HOME). */
export async function runJest(dir: string, env: Record<string, string>, args: string[] = []): Promise<JestRun> {
  const out = join(dir, `result-${Date.now()}-${Math.random().toString(36).slice(2)}.json`)
  const child = spawn(
    process.execPath,
    [
      join(REPO, 'node_modules/jest/bin/jest.js'),
      '--config',
      join(dir, 'jest.config.json'),
      '--json',
      `--outputFile=${out}`,
      '--ci=false',
      ...args,
    ],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((done) => child.on('close', done))
  try {
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      testResults: Array<{ assertionResults: JestTestResult[] }>
    }
    return { code, stdout, stderr, tests: report.testResults.flatMap((f) => f.assertionResults) }
  } catch {
    throw new Error(`jest wrote no JSON report (exit ${code})\nstdout:\n${stdout}\nstderr:\n${stderr}`)
  }
}

/** One test's result by title. */
export function jestTest(run: JestRun, title: string): JestTestResult {
  const found = run.tests.find((t) => t.title === title)
  if (!found) throw new Error(`no test "${title}" in: ${run.tests.map((t) => t.title).join(', ')}\n${run.stderr}`)
  return found
}
