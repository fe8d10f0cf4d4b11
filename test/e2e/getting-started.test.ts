// The newcomer's path, as docs/getting-started.md tells it: a fresh `npm init -y` project, the guide's config and
// eval file, a record run against the built-in fake judge, then a CI replay with the judge stopped — every
// command and file read from the guide's marked blocks, so the guide cannot drift from what works.
import { type ChildProcess, spawn } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { readReport } from '../../src/report/artifact'
import { allMarkedBlocks, docBlock } from '../support/docs-markdown'
import { repo, usePackageUnderTest } from './user-project'

const GUIDE = 'docs/getting-started.md'
/** The port the guide names; the test puts a free one in its place. */
const GUIDE_PORT = '4010'
const CJS_WARNING = /ESM syntax in a file loaded as CommonJS|configLoader: 'native'/

let project: string
let judge: ChildProcess | undefined
const cleanup: string[] = []
/** The guide's marked blocks this test has used: at the end, every one of them. */
const ran = new Set<string>()

/** A block's commands: one per line, comments and blank lines dropped. */
function commands(name: string): string[] {
  const block = docBlock(name, GUIDE)
  ran.add(name)
  expect(block.lang).toBe('sh')
  return block.text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
}

/** A file block: its first line is a comment naming the file (`// vitest.config.mts`). */
function fileBlock(name: string): { path: string; text: string } {
  const block = docBlock(name, GUIDE)
  ran.add(name)
  const first = /^\/\/\s*(\S+)\s*$/.exec(block.text.split('\n')[0])
  if (!first) throw new Error(`${GUIDE}:${block.line}: block ${name} must start with a comment naming its file`)
  return { path: first[1], text: block.text }
}

/** Only what a user's shell would set: nothing of the outer runner (VITEST_*, CI, AGENT_VERDICT_*) leaks in. */
function shellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false' }
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key] !== undefined) env[key] = process.env[key]
  // npx finds node and npm where this Node is, whatever the outer PATH holds.
  env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ''}`
  return env
}

function sh(command: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd: project, env: shellEnv() })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

/**
 * `npm i -D <packages>` done offline: each named package linked into node_modules as npm would install it (the
 * package under test for agent-verdict, the repository's own copy for the rest), with its bins in .bin for npx.
 */
function linkInstall(command: string): void {
  const m = /^npm i(?:nstall)? -D ((?:[a-z@][\w@/.-]*\s*)+)$/.exec(command)
  if (!m) throw new Error(`the guide's install line changed: ${command}`)
  const bin = join(project, 'node_modules', '.bin')
  mkdirSync(bin, { recursive: true })
  for (const name of m[1].trim().split(/\s+/)) {
    const dir = name === 'agent-verdict' ? pkg.dir : join(repo, 'node_modules', name)
    symlinkSync(dir, join(project, 'node_modules', name), 'dir')
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      bin?: string | Record<string, string>
    }
    const bins = typeof manifest.bin === 'string' ? { [name]: manifest.bin } : (manifest.bin ?? {})
    for (const [cmd, file] of Object.entries(bins)) symlinkSync(join('..', name, file), join(bin, cmd))
  }
}

/** Starts the guide's fake-judge command on a free port; resolves with the port once it prints its URL. */
function startJudge(command: string): Promise<string> {
  const free = command.replace(`--port ${GUIDE_PORT}`, '--port 0')
  if (free === command) throw new Error(`the guide's fake-judge line no longer names --port ${GUIDE_PORT}: ${command}`)
  return new Promise((resolve, reject) => {
    // A process group of its own, as a terminal's foreground job: Ctrl-C reaches npx and the server under it.
    const child = spawn('/bin/sh', ['-c', `exec ${free}`], { cwd: project, env: shellEnv(), detached: true })
    judge = child
    let output = ''
    child.stdout.on('data', (d) => {
      output += d
      const url = /http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(output)
      if (url) resolve(url[1])
    })
    child.stderr.on('data', (d) => (output += d))
    child.on('close', (code) => reject(new Error(`fake judge exited ${code}: ${output}`)))
  })
}

function stopJudge(): Promise<void> {
  const child = judge
  judge = undefined
  if (!child || child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    // A judge that ignores Ctrl-C must not hang the suite: killed outright after 10 s.
    const kill = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT') // the guide's Ctrl-C, to the whole job
  })
}

const pkg = usePackageUnderTest()

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'av-newcomer-'))
  cleanup.push(project)
}, 120_000)

afterAll(async () => {
  await stopJudge()
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

test('a fresh project following only the getting-started guide records an eval, then replays it in CI with a report', async () => {
  const [init, install, ...rest] = commands('newcomer-install')
  expect(rest).toEqual([])
  const created = await sh(init)
  expect(created.code, created.output).toBe(0)
  // What makes Vite's CommonJS warning appear: the guide's config name must hold up in such a project.
  expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).type).toBe('commonjs')
  linkInstall(install)

  for (const name of ['vitest-config', 'first-eval']) {
    const file = fileBlock(name)
    writeFileSync(join(project, file.path), file.text)
  }

  const [judgeCommand] = commands('fake-judge')
  const port = await startJudge(judgeCommand)
  const withPort = (c: string) => c.replaceAll(`127.0.0.1:${GUIDE_PORT}`, `127.0.0.1:${port}`)

  const [recordCommand] = commands('record')
  const recorded = await sh(withPort(recordCommand))
  expect(recorded.code, recorded.output).toBe(0)
  expect(recorded.output).not.toMatch(CJS_WARNING)
  const cassettes = readdirSync(join(project, '__verdicts__'))
  expect(cassettes).toEqual(['answer.eval.ts.json'])
  const first = await readReport(join(project, 'agent-verdict-report.json'))
  expect(first.run.totals.judgeCalls).toBeGreaterThan(0)
  expect(first.run.totals.assertions).toBe(1)
  expect(first.run.totals.failed).toBe(0)

  await stopJudge()
  rmSync(join(project, 'agent-verdict-report.json'))
  rmSync(join(project, 'agent-verdict-report.html'))

  const [replayCommand] = commands('replay')
  expect(replayCommand).toMatch(/^CI=true /)
  const replayed = await sh(withPort(replayCommand))
  expect(replayed.code, replayed.output).toBe(0)
  expect(replayed.output).not.toMatch(CJS_WARNING)
  const report = await readReport(join(project, 'agent-verdict-report.json'))
  expect(report.run.mode).toBe('replay')
  expect(report.run.totals).toMatchObject({ assertions: 1, failed: 0, judgeCalls: 0, cachedCalls: 1 })
  expect(report.tests.map((t) => t.verdicts.map((v) => v.outcome))).toEqual([['pass']])
  expect(existsSync(join(project, 'agent-verdict-report.html'))).toBe(true)
  // Nothing the guide marks as part of this path was skipped.
  const marked = allMarkedBlocks()
    .filter((b) => b.file === GUIDE)
    .map((b) => b.name)
  expect([...ran].sort()).toEqual([...new Set(marked)].sort())
}, 180_000)
