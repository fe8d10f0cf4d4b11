// Shared by the bench modules that time a user's `vitest run` on a generated project: the run with Vitest's
// JSON reporter (per-test durations), and the peak memory of its whole process tree (Vitest and its workers).
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repo } from '../test/e2e/user-project'

/** One `vitest run`: wall time, exit code, output, per-test durations and the tree's peak RSS. */
export interface VitestRun {
  wallMs: number
  code: number | null
  output: string
  /** `file › test name` → duration in ms, from Vitest's JSON reporter. */
  durations: Map<string, number>
  /** Peak of the summed RSS of Vitest and every process under it, sampled every 100 ms (Linux /proc); NaN elsewhere. */
  peakRssMb: number
}

const PAGE_KB = 4

/** Summed RSS (MB) of `pid` and its descendants, read from /proc; NaN where there is no /proc. */
export function treeRssMb(pid: number): number {
  if (!existsSync('/proc/self/stat')) return Number.NaN
  const children = new Map<number, number[]>()
  const rss = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // Fields after the command name (which may hold spaces) start at the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ppid = Number(fields[1])
      rss.set(Number(name), Number(fields[21]) * PAGE_KB)
      const list = children.get(ppid)
      if (list) list.push(Number(name))
      else children.set(ppid, [Number(name)])
    } catch {
      // The process ended between the listing and the read.
    }
  }
  let kb = 0
  const stack = [pid]
  while (stack.length > 0) {
    const p = stack.pop()!
    kb += rss.get(p) ?? 0
    stack.push(...(children.get(p) ?? []))
  }
  return kb / 1024
}

/**
 * Runs `vitest run` in `dir` with the JSON reporter added (its file is read for per-test durations), sampling
 * the process tree's memory. Only PATH/HOME/TMPDIR/LANG of this process's environment reach it, plus `env`.
 *
 * @example
 * const r = await vitestRun(dir, { AGENT_VERDICT_MODE: 'replay' }, ['--no-file-parallelism'])
 */
export function vitestRun(dir: string, env: Record<string, string>, args: string[] = []): Promise<VitestRun> {
  const base: NodeJS.ProcessEnv = {}
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key] !== undefined) base[key] = process.env[key]
  const jsonFile = join(dir, 'vitest-results.json')
  const argv = [
    join(repo, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${jsonFile}`,
    ...args,
  ]
  const start = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: dir, env: { ...base, NO_COLOR: '1', ...env } })
    let output = ''
    let peak = 0
    const sample = () => {
      if (child.pid !== undefined) peak = Math.max(peak, treeRssMb(child.pid))
    }
    const timer = setInterval(sample, 100)
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', (err) => {
      clearInterval(timer)
      reject(err)
    })
    child.on('close', (code) => {
      clearInterval(timer)
      const wallMs = performance.now() - start
      resolve({ wallMs, code, output, durations: readDurations(jsonFile), peakRssMb: peak })
    })
  })
}

function readDurations(file: string): Map<string, number> {
  const out = new Map<string, number>()
  if (!existsSync(file)) return out
  const results = JSON.parse(readFileSync(file, 'utf8')) as {
    testResults: Array<{ name: string; assertionResults: Array<{ title: string; duration?: number }> }>
  }
  for (const f of results.testResults)
    for (const t of f.assertionResults) out.set(`${f.name.split('/').pop()} › ${t.title}`, t.duration ?? Number.NaN)
  return out
}

/** The lines of a run's output that say what failed, for a bench error. */
export function failureLines(output: string): string {
  return output
    .split('\n')
    .filter((l) => /FAIL|Error|×|✗/.test(l))
    .slice(0, 20)
    .join('\n')
}
