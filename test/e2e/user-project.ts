// Helpers for the end-to-end test: the built package as a user gets it, and a temp project using it.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'
import { e2eDependency, e2eEnv, e2eNode, installPackageUnderTest } from './runtime'

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

const SOURCES = ['src', 'matchers', 'reporters', 'tsup.config.ts', 'package.json', 'bin']
const newestSource = () =>
  Math.max(
    ...SOURCES.map((p) => join(repo, p)).map((p) => (statSync(p).isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)),
  )

/** True when `dist/` holds every entry in both formats and is newer than every source file. */
function distIsFresh(): boolean {
  const files = ENTRIES.flatMap((e) => [`dist/${e}.js`, `dist/${e}.cjs`]).map((f) => join(repo, f))
  if (!files.every((f) => existsSync(f))) return false
  const built = Math.min(...files.map((f) => statSync(f).mtimeMs))
  return ['src', 'matchers', 'runner', 'reporters'].every((d) => newestMtime(join(repo, d)) < built)
}

/** Builds the package (JS only) into `dir`, as a user's `node_modules/agent-verdict` would hold it. */
async function buildPackage(dir: string): Promise<void> {
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
}

const HOUR = 3_600_000

/**
 * The package directory a user's `node_modules/agent-verdict` points to: the repo itself when its
 * `dist/` is fresh (CI builds before testing), otherwise a private build in a temp dir — never a
 * rebuild of the shared `dist/` from inside a test. The private build is made once per state of the
 * sources and shared by the run's files (each used to build its own, ~20 builds a run): the first file to
 * need it builds it under a lock, the others wait. Each caller gets a link of its own to it, which it
 * deletes when done as before (deleting the link leaves the build).
 */
export async function packageUnderTest(): Promise<{ dir: string; built: 'repo dist' | 'private build' }> {
  if (distIsFresh()) return { dir: repo, built: 'repo dist' }
  const prefix = `av-pkg-${createHash('sha256').update(repo).digest('hex').slice(0, 8)}-`
  const dir = join(tmpdir(), `${prefix}${Math.floor(newestSource())}`)
  const done = join(dir, '.complete')
  const lock = `${dir}.lock`
  for (;;) {
    if (existsSync(done)) {
      const link = join(tmpdir(), `av-pkg-link-${process.pid}-${Math.random().toString(36).slice(2)}`)
      symlinkSync(dir, link, 'dir')
      return { dir: link, built: 'private build' }
    }
    try {
      mkdirSync(lock)
    } catch {
      // Another file is building it. A lock older than 5 minutes is a builder that died: take it over.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000)
        rmSync(lock, { recursive: true, force: true })
      await sleep(250)
      continue
    }
    try {
      if (existsSync(done)) continue
      // Builds of older sources of this repo are not used any more (kept an hour, for a run still reading one).
      for (const old of readdirSync(tmpdir()).filter((n) => n.startsWith(prefix) && join(tmpdir(), n) !== dir)) {
        const path = join(tmpdir(), old)
        if (Date.now() - statSync(path).mtimeMs > HOUR) rmSync(path, { recursive: true, force: true })
      }
      rmSync(dir, { recursive: true, force: true }) // a build cut short (no .complete)
      const staging = mkdtempSync(join(tmpdir(), 'av-pkg-staging-'))
      try {
        await buildPackage(staging)
        renameSync(staging, dir)
      } catch (error) {
        rmSync(staging, { recursive: true, force: true })
        throw error
      }
      writeFileSync(done, '')
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
}

/** The package under test as a file's tests see it: read `dir` in a hook or a test, once the file's `beforeAll` ran. */
export interface PackageHandle {
  readonly dir: string
  readonly built: 'repo dist' | 'private build'
}

/**
 * Sets up {@link packageUnderTest} for the calling file (or `describe` block): gets it in a `beforeAll` (a private
 * build can take minutes, hence `timeout`) and, in an `afterAll`, deletes this file's link to a private build. Call it
 * before the file's own hooks, so that their `beforeAll` can already read `dir`.
 *
 * @example
 * const pkg = usePackageUnderTest()
 * it('runs in a user project', async () => {
 *   const project = makeProject('fixture', pkg.dir, ['vitest'])
 * })
 */
export function usePackageUnderTest(timeout = 180_000): PackageHandle {
  let got: Awaited<ReturnType<typeof packageUnderTest>> | undefined
  beforeAll(async () => {
    got = await packageUnderTest()
  }, timeout)
  afterAll(() => {
    if (got?.built === 'private build') rmSync(got.dir, { recursive: true, force: true })
  })
  const current = () => {
    if (!got) throw new Error('usePackageUnderTest(): the package is set up in beforeAll — read it in a hook or a test')
    return got
  }
  return {
    get dir() {
      return current().dir
    },
    get built() {
      return current().built
    },
  }
}

/**
 * Copies a fixture project to a temp dir and gives it a `node_modules` where `agent-verdict` is the
 * package under test and the runners are the repo's own (or the runtime's: see runtime.ts).
 */
export function makeProject(fixture: string, packageDir: string, deps: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), `av-${fixture}-`))
  cpSync(join(repo, 'test/e2e/fixtures', fixture), dir, { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  installPackageUnderTest(dir, packageDir)
  for (const dep of deps) {
    mkdirSync(dirname(join(dir, 'node_modules', dep)), { recursive: true })
    symlinkSync(e2eDependency(dep), join(dir, 'node_modules', dep), 'dir')
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
    const child = spawn(e2eNode(), args, { cwd, env: e2eEnv({ ...base, NO_COLOR: '1', ...env }) })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}
