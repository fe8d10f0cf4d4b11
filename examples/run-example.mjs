#!/usr/bin/env node
// Runs one example project with one command:
//   node examples/run-example.mjs vitest-multimodal|jest-text [--package DIR] [-- runner args…]
// Without AGENT_VERDICT_JUDGE it starts the fake judge with the example's fake-judge-rules.json and
// points the example at it (no cassette files: AGENT_VERDICT_MODE=live unless you set a mode).
// With AGENT_VERDICT_JUDGE set it uses that real judge, and verdicts are recorded in __verdicts__/.
// The example uses `agent-verdict` as a user would: node_modules/agent-verdict links to this repo
// (or --package DIR), whose dist/ must be built (`npm run build`).
import { spawn } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const repo = resolve(here, '..')

const EXAMPLES = {
  'vitest-multimodal': { args: [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'] },
  'jest-text': { args: [join(repo, 'node_modules/jest/bin/jest.js'), '--ci=false'] },
}

function usage(message) {
  console.error(
    `${message}\nusage: node examples/run-example.mjs <${Object.keys(EXAMPLES).join('|')}> [--package DIR] [-- runner args…]`,
  )
  process.exit(2)
}

const argv = process.argv.slice(2)
const name = argv.shift()
if (!name || !(name in EXAMPLES)) usage(name ? `unknown example "${name}"` : 'which example?')
let packageDir = repo
const extra = []
while (argv.length) {
  const arg = argv.shift()
  if (arg === '--package') packageDir = resolve(argv.shift() ?? usage('--package needs a directory'))
  else if (arg === '--') extra.push(...argv.splice(0))
  else extra.push(arg)
}

const exampleDir = join(here, name)
if (!existsSync(join(packageDir, 'dist', 'testing.js'))) {
  console.error(
    `agent-verdict is not built in ${packageDir}: run \`npm run build\` first (the example uses the package as a user would).`,
  )
  process.exit(2)
}

// node_modules/agent-verdict → the package, like `npm install agent-verdict` would give.
const link = join(exampleDir, 'node_modules', 'agent-verdict')
mkdirSync(dirname(link), { recursive: true })
if (existsSync(link) || isDanglingLink(link)) {
  if (!lstatSync(link).isSymbolicLink() || resolve(dirname(link), readlinkSync(link)) !== packageDir)
    rmSync(link, { recursive: true, force: true })
}
if (!existsSync(link)) symlinkSync(packageDir, link, 'dir')

const env = { ...process.env }
let fake
if (env.AGENT_VERDICT_JUDGE) {
  console.log(
    `agent-verdict example ${name}: real judge ${env.AGENT_VERDICT_JUDGE.split('#')[0].replace(/^openai-compatible:.*/, 'openai-compatible')}`,
  )
} else {
  const { startFakeJudge, loadFakeJudgeRules } = await import(
    pathToFileURL(join(packageDir, 'dist', 'testing.js')).href
  )
  fake = await startFakeJudge(await loadFakeJudgeRules(join(exampleDir, 'fake-judge-rules.json')))
  env.AGENT_VERDICT_JUDGE = `openai-compatible:${fake.baseURL}#fake-judge`
  env.AGENT_VERDICT_MODE ??= 'live'
  console.log(
    `agent-verdict example ${name}: fake judge at ${fake.baseURL} (rules: examples/${name}/fake-judge-rules.json)`,
  )
}

const child = spawn(process.execPath, [...EXAMPLES[name].args, ...extra], { cwd: exampleDir, env, stdio: 'inherit' })
const stop = (signal) => child.kill(signal)
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
const code = await new Promise((done) => child.on('close', (c, signal) => done(c ?? (signal ? 1 : 0))))
if (fake) console.log(`agent-verdict example ${name}: ${fake.calls.length} judge calls`)
await fake?.close()
process.exit(code)

function isDanglingLink(path) {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}
