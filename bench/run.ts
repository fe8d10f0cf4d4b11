// `npm run bench [-- name…]`: runs the bench modules in order, one line per figure: `key value [detail]`.
// Ratios are measured within one run on one machine, so they compare like with like; never assert on them in tests.
import type { BenchModule, Emit } from './emit'

/** The bench modules, in run order. Add yours here: `{ name, load: () => import('./your-module') }`. */
const MODULES: Array<{ name: string; load: () => Promise<BenchModule> }> = [
  { name: 'ingest', load: () => import('./ingest') },
  { name: 'judge-scheduling', load: () => import('./judge-scheduling') },
  { name: 'workers', load: () => import('./workers') },
  { name: 'trail', load: () => import('./trail') },
  { name: 'trail-detectors', load: () => import('./trail-detectors') },
  { name: 'xframework', load: () => import('./xframework') },
  { name: 'tokens', load: () => import('./tokens') },
  { name: 'replay', load: () => import('./replay') },
  { name: 'replay-agent', load: () => import('./replay-agent') },
  { name: 'trace-replay', load: () => import('./trace-replay') },
  { name: 'batch-record', load: () => import('./batch-record') },
  { name: 'suite', load: () => import('./suite') },
  { name: 'scale', load: () => import('./scale') },
  { name: 'preconnect', load: () => import('./preconnect') },
  { name: 'scrub', load: () => import('./scrub') },
  { name: 'first-command', load: () => import('./first-command') },
]

function formatValue(value: number | string): string {
  if (typeof value === 'string') return value
  if (Number.isInteger(value)) return String(value)
  return Math.abs(value) >= 100 ? value.toFixed(1) : value.toPrecision(3)
}

const emit: Emit = (key, value, detail) => {
  process.stdout.write(`${key} ${formatValue(value)}${detail ? ` ${detail}` : ''}\n`)
}

async function main(argv: string[]): Promise<number> {
  const wanted = argv.filter((a) => !a.startsWith('-'))
  const unknown = wanted.filter((w) => !MODULES.some((m) => m.name === w))
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown module(s) ${unknown.join(', ')}; available: ${MODULES.map((m) => m.name).join(', ')}\n`,
    )
    return 2
  }
  let failed = 0
  for (const mod of MODULES) {
    if (wanted.length > 0 && !wanted.includes(mod.name)) continue
    try {
      await (await mod.load()).run(emit)
    } catch (error) {
      // One broken module must not hide the others' figures.
      failed++
      process.stderr.write(`bench: ${mod.name} failed: ${error instanceof Error ? error.message : String(error)}\n`)
    }
  }
  return failed > 0 ? 1 : 0
}

process.exitCode = await main(process.argv.slice(2))
