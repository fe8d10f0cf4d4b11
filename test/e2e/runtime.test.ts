// The e2e runtime switch (runtime.ts) holds: a user project runs on the runtime's Node and its own Vitest, and the
// package under test resolves `vitest` from the project (not from the repo, where a symlinked package would look).
// Without it a current-runtime leg could pass while running everything on Node 20 and Vitest 4.1.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runtimeDir, runtimeName, vitestCli } from './runtime'
import { makeProject, packageUnderTest, repo, run } from './user-project'

const cleanup: string[] = []
let project: string

beforeAll(async () => {
  const pkg = await packageUnderTest()
  if (pkg.built === 'private build') cleanup.push(pkg.dir)
  project = makeProject('user-vitest', pkg.dir, ['vitest'])
  cleanup.push(project)
}, 180_000)

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

const versionOf = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version

it(`a user project runs on ${runtimeName()} with that runtime's Vitest, which the package under test imports`, async () => {
  const modules = join(runtimeDir ?? repo, 'node_modules')
  const node = runtimeDir ? versionOf(join(modules, 'node')) : process.versions.node
  const vitest = versionOf(join(modules, 'vitest'))
  const cli = await run(project, [vitestCli(project), '--version'], {})
  expect(cli.output.trim()).toBe(
    `vitest/${vitest} linux-x64 node-v${node}`.replace('linux-x64', `${process.platform}-${process.arch}`),
  )
  const probe = `import { createRequire } from 'node:module'
const fromPackage = createRequire(import.meta.resolve('agent-verdict'))
console.log(JSON.stringify({ node: process.versions.node, vitest: fromPackage('vitest/package.json').version }))`
  const seen = await run(project, ['--input-type=module', '-e', probe], {})
  expect(seen.code, seen.output).toBe(0)
  expect(JSON.parse(seen.output)).toEqual({ node, vitest })
})
