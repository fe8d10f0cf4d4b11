// The README's first command in a clone without dist/: bin/agent-verdict.js bundles the CLI alone from src/
// (no full build) and answers; the bundle is reused until one of its sources changes.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { repo } from '../e2e/user-project'

let clone: string

beforeAll(() => {
  // What `npm ci` leaves in a fresh clone: the sources and the installed packages, no dist/, no CLI cache.
  clone = mkdtempSync(join(tmpdir(), 'av-clone-bin-'))
  for (const dir of ['src', 'bin', 'examples/traces']) cpSync(join(repo, dir), join(clone, dir), { recursive: true })
  cpSync(join(repo, 'package.json'), join(clone, 'package.json'))
  cpSync(join(repo, 'tsconfig.json'), join(clone, 'tsconfig.json'))
  mkdirSync(join(clone, 'node_modules'))
  for (const name of readdirSync(join(repo, 'node_modules')))
    if (name !== '.cache') symlinkSync(join(repo, 'node_modules', name), join(clone, 'node_modules', name))
})

afterAll(() => rmSync(clone, { recursive: true, force: true }))

const diagnose = () =>
  spawnSync(process.execPath, [join(clone, 'bin/agent-verdict.js'), 'diagnose', 'examples/traces'], {
    cwd: clone,
    encoding: 'utf8',
  })

it('bundles the CLI alone on the first run, reuses it, and bundles again when a source changes', () => {
  const first = diagnose()
  expect(first.stderr).toContain('no dist/ in this clone — bundling the CLI from src/')
  expect(first.stderr).toMatch(/bundled the CLI in [\d.]+ s; `npm run build` builds the whole package/)
  expect(first.status, first.stderr).toBe(1) // findings
  expect(first.stdout).toContain('diagnosed 3 traces (37 spans): 8 findings in 3 traces')

  const again = diagnose()
  expect(again.stderr).not.toContain('bundling')
  expect(again.status).toBe(1)
  expect(again.stdout).toBe(first.stdout)

  const later = new Date(Date.now() + 60_000)
  utimesSync(join(clone, 'src/cli/diagnose.ts'), later, later)
  const edited = diagnose()
  expect(edited.stderr).toContain('bundling the CLI from src/')
  expect(edited.stdout).toBe(first.stdout)
}, 120_000)
