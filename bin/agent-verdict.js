#!/usr/bin/env node
// Thin launcher for the CLI built into dist/. Installed packages ship dist/ (built by `prepack`). In a
// fresh clone of the repository (src/ present, dev dependencies installed) there is no dist/: the CLI alone is
// bundled once with esbuild into node_modules/.cache (no declarations, no other entries: a few seconds, where
// the whole build took 33 s quiet and minutes loaded), so `npm ci && npx agent-verdict …` answers at once
// without a `prepare` script that consumers' npm would warn about. It is rebuilt when a source it holds changes.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const at = (path) => fileURLToPath(new URL(path, import.meta.url))
let cli = at('../dist/cli.js')
if (!existsSync(cli)) cli = await cloneCli()
const { main } = await import(pathToFileURL(cli).href)
process.exitCode = await main(process.argv.slice(2))

/** The CLI bundled from src/ in a clone: built when absent or older than one of its sources. */
async function cloneCli() {
  const out = at('../node_modules/.cache/agent-verdict/cli.js')
  const inputsFile = `${out}.inputs.json`
  if (!existsSync(at('../src/cli/main.ts')) || !existsSync(at('../node_modules/esbuild'))) {
    process.stderr.write(
      'agent-verdict: dist/ is missing and cannot be built here — reinstall the package, or in a clone run `npm ci && npm run build`.\n',
    )
    process.exit(2)
  }
  if (existsSync(out) && existsSync(inputsFile) && upToDate(out, inputsFile)) return out
  process.stderr.write('agent-verdict: no dist/ in this clone — bundling the CLI from src/ (a few seconds)…\n')
  const started = Date.now()
  try {
    const { build } = await import('esbuild')
    const result = await build({
      absWorkingDir: at('..'),
      entryPoints: ['src/cli/main.ts'],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // Dependencies load from the clone's node_modules, as the built package loads them from a user's.
      packages: 'external',
      metafile: true,
      logLevel: 'error',
    })
    writeFileSync(inputsFile, JSON.stringify(Object.keys(result.metafile.inputs)))
  } catch {
    process.stderr.write('agent-verdict: bundling the CLI failed (errors above); `npm run build` shows them in full.\n')
    process.exit(2)
  }
  process.stderr.write(
    `agent-verdict: bundled the CLI in ${((Date.now() - started) / 1000).toFixed(1)} s; \`npm run build\` builds the whole package (dist/).\n`,
  )
  return out
}

function upToDate(out, inputsFile) {
  const built = statSync(out).mtimeMs
  try {
    const inputs = JSON.parse(readFileSync(inputsFile, 'utf8'))
    return inputs.every((input) => statSync(at(`../${input}`)).mtimeMs <= built)
  } catch {
    return false // a source moved or was deleted: build again
  }
}
