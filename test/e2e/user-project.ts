// Helpers for the end-to-end test: the built package as a user gets it, and a temp project using it.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repo = fileURLToPath(new URL('../..', import.meta.url))
const ENTRIES = [
  'index',
  'vitest',
  'vitest-plugin',
  'jest',
  'reporter',
  'jest-reporter',
  'testing',
  'cli',
  'global-setup',
  'record',
]

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/** True when `dist/` holds every entry in both formats and is newer than every source file. */
function distIsFresh(): boolean {
  const files = ENTRIES.flatMap((e) => [`dist/${e}.js`, `dist/${e}.cjs`]).map((f) => join(repo, f))
  if (!files.every((f) => existsSync(f))) return false
  const built = Math.min(...files.map((f) => statSync(f).mtimeMs))
  return ['src', 'matchers', 'runner', 'reporters'].every((d) => newestMtime(join(repo, d)) < built)
}

/**
 * The package directory a user's `node_modules/agent-verdict` points to: the repo itself when its
 * `dist/` is fresh (CI builds before testing), otherwise a private build in a temp dir — never a
 * rebuild of the shared `dist/` from inside a test.
 */
export async function packageUnderTest(): Promise<{ dir: string; built: 'repo dist' | 'private build' }> {
  if (distIsFresh()) return { dir: repo, built: 'repo dist' }
  const dir = mkdtempSync(join(tmpdir(), 'av-pkg-'))
  const { build } = await import('tsup')
  const tsup = await import('../../tsup.config')
  const config = tsup.default as Record<string, unknown>
  // JS only: types are not needed to run, and a type build would fail on any colleague's work in progress.
  // The config's onSuccess writes into the repo's dist/: here the same rewrite goes into the private one.
  await build({
    ...config,
    config: false,
    dts: false,
    sourcemap: false,
    silent: true,
    outDir: join(dir, 'dist'),
    onSuccess: undefined,
  })
  tsup.rewriteSetupEntries(join(dir, 'dist'))
  cpSync(join(repo, 'package.json'), join(dir, 'package.json'))
  cpSync(join(repo, 'bin'), join(dir, 'bin'), { recursive: true }) // the `agent-verdict` CLI (report merge)
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return { dir, built: 'private build' }
}

/**
 * Copies a fixture project to a temp dir and gives it a `node_modules` where `agent-verdict` is the
 * package under test and the runners are the repo's own.
 */
export function makeProject(fixture: string, packageDir: string, deps: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), `av-${fixture}-`))
  cpSync(join(repo, 'test/e2e/fixtures', fixture), dir, { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(packageDir, join(dir, 'node_modules', 'agent-verdict'), 'dir')
  for (const dep of deps) {
    mkdirSync(dirname(join(dir, 'node_modules', dep)), { recursive: true })
    symlinkSync(join(repo, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir')
  }
  return dir
}

export interface RunResult {
  code: number | null
  output: string
}

/** Runs a command in the project with a clean environment: only what a user's shell would set, plus `env`. */
export function run(cwd: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  const base: NodeJS.ProcessEnv = {}
  // Nothing of the outer test runner leaks in (VITEST_*, JEST_WORKER_ID, CI, GITHUB_*, AGENT_VERDICT_*).
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SystemRoot'])
    if (process.env[key] !== undefined) base[key] = process.env[key]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...base, NO_COLOR: '1', ...env } })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}
