#!/usr/bin/env node
// Thin launcher for the CLI built into dist/. Installed packages ship dist/ (built by `prepack`). In a
// fresh clone of the repository (src/ present, dev dependencies installed) the first run builds it once,
// so `npm ci && npx agent-verdict …` works without a `prepare` script that consumers' npm would warn about.
import { spawn } from 'node:child_process'
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
  // No time is promised: the build took 334 s on a 2-core machine shared by several builds (issue 35). A line every
  // 15 s says it is still going, and the last one how long it took.
  process.stderr.write(
    'agent-verdict: first run in this clone — building dist/ once with tsup (a minute or more on a small or busy machine)…\n',
  )
  const started = Date.now()
  const seconds = () => Math.round((Date.now() - started) / 1000)
  const ticker = setInterval(
    () => process.stderr.write(`agent-verdict: still building dist/ (${seconds()} s)…\n`),
    15_000,
  )
  const status = await new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(tsup), '--silent'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    child.on('error', () => resolve(1))
    child.on('exit', (code) => resolve(code ?? 1))
  })
  clearInterval(ticker)
  if (status === 0 && existsSync(fileURLToPath(cli)))
    process.stderr.write(`agent-verdict: built dist/ in ${seconds()} s; later runs start at once.\n`)
  if (status !== 0 || !existsSync(fileURLToPath(cli))) {
    process.stderr.write('agent-verdict: the build failed (output above); run `npm run build` to see why.\n')
    process.exit(2)
  }
}
const { main } = await import(cli.href)
process.exitCode = await main(process.argv.slice(2))
