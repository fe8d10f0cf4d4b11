// What a consumer installs: the LICENSE, no lifecycle script npm would warn about, and no source map
// pointing at files the tarball does not hold (stacks would name node_modules/agent-verdict/src/…).
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, expect, test } from 'vitest'
import tsupConfig from '../../tsup.config'
import { repo } from './user-project'

interface PackFile {
  path: string
}

/** `npm pack --dry-run` without the prepack build: the file list npm would publish from this tree. */
function packedFiles(): string[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: repo,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  return (JSON.parse(out) as Array<{ files: PackFile[] }>)[0].files.map((f) => f.path)
}

describe('the published package', () => {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>
    files?: string[]
  }

  test('holds the LICENSE and the README', () => {
    const files = packedFiles()
    expect(files).toContain('LICENSE')
    expect(files).toContain('README.md')
  }, 60_000)

  test('has no install-time lifecycle script (npm warns consumers about them); the build runs on prepack', () => {
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(pkg.scripts).not.toHaveProperty(script)
    expect(pkg.scripts?.prepack).toBe('tsup')
  })

  test('ships no source map whose sources it lacks: stacks point at files a user can open', () => {
    // The build makes none (decision 0001); if one is ever added, every source it names must be packed too.
    const config = tsupConfig as { sourcemap?: unknown }
    const files = new Set(packedFiles())
    const maps = [...files].filter((f) => f.endsWith('.map'))
    if (config.sourcemap)
      expect(maps.length, 'sourcemap is on but no map is packed: is dist/ built?').toBeGreaterThan(0)
    for (const map of maps) {
      if (!existsSync(join(repo, map))) continue
      const { sources } = JSON.parse(readFileSync(join(repo, map), 'utf8')) as { sources: string[] }
      for (const source of sources)
        expect(files, `${map} names ${source}`).toContain(normalize(join(dirname(map), source)))
    }
    expect(config.sourcemap ?? false).toBe(false)
  }, 60_000)

  test('the Jest setup of the README and the getting-started guide installs what its transform needs and says where testTimeout and ESM go', () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8')
    expect(readme).toContain('npm i -D agent-verdict jest @swc/jest @swc/core')
    expect(readme).toContain("transform: { '^.+\\\\.ts$': '@swc/jest' }")
    const guide = readFileSync(join(repo, 'docs/getting-started.md'), 'utf8')
    const start = guide.indexOf('\n## Set-up in detail\n')
    expect(start).toBeGreaterThan(0)
    const next = guide.indexOf('\n## ', start + 1)
    const setup = guide.slice(start, next < 0 ? undefined : next)
    // @swc/jest cannot load without @swc/core (its peer dependency): a user following the README must get both.
    expect(setup).toContain('npm i -D agent-verdict jest @swc/jest @swc/core')
    expect(setup).toContain("transform: { '^.+\\\\.ts$': '@swc/jest' }")
    // The e2e Jest project uses the same transform, so the README's setup is the one tested.
    expect(readFileSync(join(repo, 'test/e2e/fixtures/user-jest/jest.config.cjs'), 'utf8')).toContain(
      "transform: { '^.+\\\\.ts$': '@swc/jest' }",
    )
    expect(setup).toMatch(/"type": "module"/)
    expect(setup).toMatch(/testTimeout: 60_000/)
  })
})
