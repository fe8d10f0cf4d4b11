// Sides of `report diff`: a report JSON, a folder of cassettes, or either read at a git ref with `git show`.
import { execFile } from 'node:child_process'
import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { promisify } from 'node:util'
import { parseReport } from '../report/artifact'
import { itemsFromReport, type DiffItem, type DiffSide } from '../report/diff'
import { readCassetteText } from '../cassette/store'
import { itemsFromCassette } from './diff-cassette'

const run = promisify(execFile)

const toPosix = (p: string) => p.split(sep).join('/')

// `__verdicts__/a.test.ts.json` under `root` → the test file it belongs to, relative to root.
function testFileOf(root: string, cassette: string): string {
  return toPosix(relative(root, join(dirname(dirname(cassette)), basename(cassette, '.json'))))
}

function reportItems(text: string, where: string): DiffItem[] {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new Error(
      `agent-verdict report diff: ${where} is not valid JSON (${(error as Error).message}); pass a report artifact or a folder of cassettes`,
    )
  }
  try {
    return itemsFromReport(parseReport(json, where))
  } catch (error) {
    throw new Error(`agent-verdict report diff: ${(error as Error).message.replace(/^agent-verdict: /, '')}`)
  }
}

async function cassetteFiles(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.git') continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...(await cassetteFiles(path)))
    else if (entry.isFile() && basename(dir) === '__verdicts__' && entry.name.endsWith('.json')) found.push(path)
  }
  return found.sort()
}

/**
 * Loads one side from the working tree: a report JSON file, or a folder searched for
 * `__verdicts__/*.json` cassettes (test files named relative to that folder).
 *
 * @example
 * await loadSide('agent-verdict-report.json')
 */
export async function loadSide(path: string): Promise<DiffSide> {
  let info
  try {
    info = await stat(path)
  } catch {
    throw new Error(
      `agent-verdict report diff: ${path} does not exist; pass a report JSON, a folder with __verdicts__ cassettes, or --base-ref <git ref>`,
    )
  }
  if (info.isFile()) return { label: path, items: reportItems(await readFile(path, 'utf8'), path) }
  const files = await cassetteFiles(path)
  if (files.length === 0) throw new Error(`agent-verdict report diff: no __verdicts__/*.json cassettes under ${path}`)
  const items: DiffItem[] = []
  for (const f of files) items.push(...itemsFromCassette(testFileOf(path, f), await readCassetteText(f), f))
  return { label: path, items }
}

async function git(cwd: string, args: string[]): Promise<string> {
  try {
    return (await run('git', args, { cwd, maxBuffer: 256 * 1024 * 1024 })).stdout
  } catch (error) {
    const detail = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim()
    throw new Error(`agent-verdict report diff: git ${args.join(' ')} failed: ${detail}`)
  }
}

/**
 * Loads the same path as `headPath` at a git ref (`--base-ref origin/main`): the report file, or the
 * cassettes under the folder, read with `git show <ref>:<path>`. Needs `headPath` inside a git work tree.
 *
 * @example
 * await loadSideAtRef('origin/main', 'test')
 */
export async function loadSideAtRef(ref: string, headPath: string): Promise<DiffSide> {
  const abs = resolve(headPath)
  const info = await stat(abs).catch(() => undefined)
  const cwd = info?.isFile() ? dirname(abs) : abs
  const top = (await git(cwd, ['rev-parse', '--show-toplevel'])).trim()
  const inRepo = toPosix(relative(top, abs))
  const label = `${ref}:${inRepo || '.'}`
  await git(top, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(() => {
    throw new Error(`agent-verdict report diff: unknown git ref "${ref}" (fetch it first, e.g. git fetch origin main)`)
  })
  if (info?.isFile()) return { label, items: reportItems(await git(top, ['show', `${ref}:${inRepo}`]), label) }
  const listed = (await git(top, ['ls-tree', '-r', '--name-only', ref, '--', inRepo || '.']))
    .split('\n')
    .filter((f) => /(^|\/)__verdicts__\/[^/]+\.json$/.test(f))
  const items: DiffItem[] = []
  for (const f of listed.sort()) {
    const testFile = toPosix(relative(inRepo, join(dirname(dirname(f)), basename(f, '.json'))))
    items.push(...itemsFromCassette(testFile, await git(top, ['show', `${ref}:${f}`]), `${ref}:${f}`))
  }
  return { label, items }
}
