#!/usr/bin/env node
// Thin launcher: the CLI is built into dist/ by `npm run build` (run automatically by `npm ci` via `prepare`).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const cli = new URL('../dist/cli.js', import.meta.url)
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('agent-verdict: dist/ is missing — run `npm run build` (or `npm ci`, which builds) first.\n')
  process.exit(2)
}
const { main } = await import(cli.href)
process.exitCode = await main(process.argv.slice(2))
