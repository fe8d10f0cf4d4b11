// The runtime the e2e user projects run on (issue 38). Without AGENT_VERDICT_E2E_RUNTIME: this process's Node and
// the repo's own runners and SDKs (Node 20, Vitest 4.1, Jest 30, OTel 2.x), as always. With
// AGENT_VERDICT_E2E_RUNTIME=<dir> (e.g. `.ci/node24`, after `npm ci` there): the Node binary of `<dir>`'s
// `node` package and the runners and SDKs `<dir>` installed (Vitest 5, openai 7, msw 3, OTel 0.300+), falling back
// to the repo's for a package it does not hold. The tests themselves still run on the repo's Vitest: only the
// user projects they spawn move.
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const RUNTIME_ENV = 'AGENT_VERDICT_E2E_RUNTIME'

function runtimeFromEnv(): string | undefined {
  const value = process.env[RUNTIME_ENV]
  if (!value) return undefined
  const dir = resolve(repo, value)
  const node = join(dir, 'node_modules/node/bin/node')
  if (!existsSync(node))
    throw new Error(`${RUNTIME_ENV}=${value}: no ${node}. Install that runtime first: (cd ${dir} && npm ci)`)
  return dir
}

/** The runtime folder (absolute), or undefined on the default runtime (this process's Node, the repo's packages). */
export const runtimeDir: string | undefined = runtimeFromEnv()

/** A short name for test titles: `node 24.21.0` or `node 20.20.2 (repo)`. */
export function runtimeName(): string {
  if (!runtimeDir) return `node ${process.versions.node} (repo)`
  const version = JSON.parse(readFileSync(join(runtimeDir, 'node_modules/node/package.json'), 'utf8')) as {
    version: string
  }
  return `node ${version.version}`
}

/** The Node binary user projects run on. */
export function e2eNode(): string {
  return runtimeDir ? join(runtimeDir, 'node_modules/node/bin/node') : process.execPath
}

/**
 * The environment a user project's command gets: on a runtime, its Node first on PATH, so whatever the runner
 * spawns as `node` (a worker, a script) is the same Node.
 */
export function e2eEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (!runtimeDir) return env
  return { ...env, PATH: [dirname(e2eNode()), env.PATH].filter(Boolean).join(delimiter) }
}

/** Where a project's `node_modules/<dep>` comes from: the runtime's copy when it has one, the repo's otherwise. */
export function e2eDependency(dep: string): string {
  const own = runtimeDir && join(runtimeDir, 'node_modules', dep)
  return own && existsSync(own) ? own : join(repo, 'node_modules', dep)
}

/** True when the runtime installs `dep` itself (rather than falling back to the repo's). */
export function runtimeHas(dep: string): boolean {
  return !!runtimeDir && existsSync(join(runtimeDir, 'node_modules', dep))
}

/** The Vitest CLI a project runs: its own `node_modules/vitest` (the runtime's Vitest 5, or the repo's 4.1). */
export function vitestCli(project: string): string {
  return join(project, 'node_modules/vitest/vitest.mjs')
}

/** The Jest CLI a project runs: its own `node_modules/jest`. */
export function jestCli(project: string): string {
  return join(project, 'node_modules/jest/bin/jest.js')
}

/** Hard links every file of `from` into `to` (directories made), as a copy that costs no disk. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true })
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name)
    const target = join(to, entry.name)
    if (entry.isDirectory()) linkTree(source, target)
    else linkSync(realpathSync(source), target)
  }
}

/**
 * Puts the package under test at `<project>/node_modules/agent-verdict`. On the default runtime: a symlink, as
 * before. On another runtime: a hard-linked copy of what npm would install (package.json, dist/, bin/). A symlink
 * resolves the package's own imports from its real path, the repo, so its `import 'vitest'` would load the repo's
 * Vitest 4.1 beside the project's Vitest 5 and the matchers would register on the wrong `expect`; the copy
 * resolves them from the project, as an installed package does. The package's own dependencies go in its nested
 * node_modules, linked to the repo's: that is where npm puts them when the project holds another major of one
 * (the user's openai 7 beside the package's openai 6).
 */
export function installPackageUnderTest(project: string, packageDir: string): void {
  const target = join(project, 'node_modules', 'agent-verdict')
  if (!runtimeDir) {
    symlinkSync(packageDir, target, 'dir')
    return
  }
  const source = realpathSync(packageDir)
  mkdirSync(target, { recursive: true })
  linkSync(join(source, 'package.json'), join(target, 'package.json'))
  for (const dir of ['dist', 'bin']) linkTree(join(source, dir), join(target, dir))
  const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>
  }
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    const link = join(target, 'node_modules', dep)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(join(repo, 'node_modules', dep), link, 'dir')
  }
}
