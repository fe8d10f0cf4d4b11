// `npm run test:loaded [-- --burners=N] [vitest args…]`: the CI test run (CI=true, files and tests shuffled, the
// seed printed) while N busy-loop processes (default 1) take CPU away from it, as a slower CI machine does.
// Timing assumptions that hold on an idle machine and not on CI fail here first: a wait budget one slow attempt
// uses up, a per-test timeout a child runner outgrows. Exits with the test run's code; the burners always stop.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
if (args.includes('--burners')) {
  console.error('test:loaded: write the count with an equals sign, e.g. --burners=2')
  process.exit(2)
}
const burnersArg = args.find((a) => a.startsWith('--burners='))
const burners = burnersArg ? Number(burnersArg.slice('--burners='.length)) : 1
if (!Number.isInteger(burners) || burners < 0 || burners > 16) {
  console.error(`test:loaded: --burners takes a whole number from 0 to 16, e.g. --burners=2; got ${burnersArg}`)
  process.exit(2)
}
const vitestArgs = args.filter((a) => a !== burnersArg)

// Each burner also stops itself once this process is gone (killed with SIGKILL, say, where no exit handler runs):
// it checks its parent between busy stretches of a few milliseconds.
const BURN = `const parent = process.ppid; for (;;) { for (let i = 0; i < 1e6; i++); if (process.ppid !== parent) process.exit(0) }`
const busy = Array.from({ length: burners }, () => spawn(process.execPath, ['-e', BURN], { stdio: 'ignore' }))
const stopBurners = () => {
  for (const child of busy) child.kill('SIGKILL')
}
process.on('exit', stopBurners)
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopBurners()
    process.exit(130)
  })

console.log(`test:loaded: ${burners} busy process${burners === 1 ? '' : 'es'} beside the CI test run`)
const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))
const run = spawn(process.execPath, [vitest, 'run', ...vitestArgs], {
  stdio: 'inherit',
  env: { ...process.env, CI: 'true' },
})
run.on('close', (code, signal) => {
  stopBurners()
  process.exit(code ?? (signal ? 1 : 0))
})
