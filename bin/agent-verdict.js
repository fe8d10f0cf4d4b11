#!/usr/bin/env node
// Thin launcher for the CLI built into dist/. Installed packages ship dist/ (built by `prepack`). In a
// fresh clone of the repository (src/ present, dev dependencies installed) the first run builds it once,
// so `npm ci && npx agent-verdict …` works without a `prepare` script that consumers' npm would warn about.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const cli = new URL('../dist/cli.js', import.meta.url)
if (!existsSync(fileURLToPath(cli))) {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const tsup = new URL('../node_modules/tsup/dist/cli-default.js', import.meta.url)
  if (!existsSync(fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))) || !existsSync(fileURLToPath(tsup))) {
    process.stderr.write(
      'agent-verdict: dist/ is missing and cannot be built here — reinstall the package, or in a clone run `npm ci && npm run build`.\n',
    )
    process.exit(2)
  }
  process.stderr.write('agent-verdict: first run in this clone — building dist/ (once, a few seconds)…\n')
  const built = spawnSync(process.execPath, [fileURLToPath(tsup), '--silent'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (built.status !== 0 || !existsSync(fileURLToPath(cli))) {
    process.stderr.write('agent-verdict: the build failed (output above); run `npm run build` to see why.\n')
    process.exit(2)
  }
}
const { main } = await import(cli.href)
process.exitCode = await main(process.argv.slice(2))
