// Suite: what a user's `vitest run` costs, through the real Vitest CLI on generated projects and the
// built package (a private build when dist/ is stale), against the fake judge (L = 200 ms).
//  - suite.default.ratio: a 40-assertion `*.eval.ts` file with the setup the README shows first; judge
//    span (first request to last answer) ÷ ⌈40/C⌉·L, C the judge limit (8). 1.00 = the judge never idles.
//  - suite.overhead_ms: that run's wall minus its judge span, in ms (issue 37: goal ≤ 800); the detail gives the
//    plain suite's wall beside it.
//  - suite.overhead.ratio: that run's wall minus its judge span ÷ the wall of a plain Vitest suite of 40
//    trivial async tests (no judge): the fixed cost agent-verdict adds to a run. The detail splits it: launch to
//    the first request at the judge, and the last answer to the run's end (the fake judge's clock, `startedAt`).
//  - suite.outage.lost: the same suite with 10% 429s (retry-after 0.2 s) and a 2 s outage of 503s at the
//    start: verdicts missing from the report (must be 0).
//  - setup.import_ms: importing the plugin's setup entry (`agent-verdict/vitest-setup`) in a fresh process,
//    after `vitest` itself (whose cost is the runner's, not ours); median of 5 processes.
// The two suite ratios are the medians of 5 alternated (plain, judged) pairs.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { startFakeJudge, type FakeJudge } from '../src/testing/fake-judge'
import { packageUnderTest, repo, run as runIn } from '../test/e2e/user-project'
import type { Emit } from './emit'

const N = 40
const L = 200
const C = 8
/** Alternated (plain, judged) pairs measured; the median is reported. */
const PAIRS = 5

/**
 * A project using the built package as npm installs it: a real `node_modules/agent-verdict` holding a
 * copy of dist/ (a symlink to the repo would resolve outside node_modules, and Vite would then transform
 * the whole package as source instead of letting Node import it), its dependencies and vitest linked.
 */
export function project(packageDir: string, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'av-bench-suite-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  const installed = join(dir, 'node_modules', 'agent-verdict')
  mkdirSync(installed, { recursive: true })
  cpSync(join(packageDir, 'package.json'), join(installed, 'package.json'))
  cpSync(join(packageDir, 'dist'), join(installed, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') })
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>
  }
  for (const dep of [...Object.keys(pkg.dependencies), 'vitest']) {
    mkdirSync(dirname(join(dir, 'node_modules', dep)), { recursive: true })
    symlinkSync(join(repo, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir')
  }
  return dir
}

/** The 40-assertion eval file (one `toBeCorrect` per test). */
export function evalFile(): string {
  const tests = Array.from(
    { length: N },
    (_, i) =>
      `test('answer ${i}', async () => {\n  await expect('The total is ${i} dollars.').toBeCorrect({ reference: 'Total: ${i} dollars', input: 'Total of order ${i}?' })\n})`,
  )
  return `import { expect, test } from 'vitest'\n\n${tests.join('\n\n')}\n`
}

function plainFile(): string {
  const tests = Array.from(
    { length: N },
    (_, i) => `test('trivial ${i}', async () => {\n  expect(await Promise.resolve(${i})).toBe(${i})\n})`,
  )
  return `import { expect, test } from 'vitest'\n\n${tests.join('\n\n')}\n`
}

/** The first setup the README and the getting-started guide show: the plugin when the package has it, else setupFiles + reporters. */
export function evalConfig(packageDir: string): { config: string; setup: string } {
  if (existsSync(join(packageDir, 'dist', 'vitest-plugin.js'))) {
    return {
      setup: 'plugin',
      config: `import { defineConfig } from 'vitest/config'\nimport { agentVerdict } from 'agent-verdict/vitest-plugin'\n\nexport default defineConfig({ plugins: [agentVerdict()] })\n`,
    }
  }
  return {
    setup: 'setupFiles+reporters',
    config: `import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ test: { include: ['**/*.eval.ts'], setupFiles: ['agent-verdict/vitest'], reporters: ['default', 'agent-verdict/reporter'] } })\n`,
  }
}

interface Timed {
  /** `Date.now()` at launch, on the fake judge's clock (`startedAt`). */
  launchedAt: number
  wallMs: number
  code: number | null
  output: string
}

async function vitest(dir: string, env: Record<string, string>): Promise<Timed> {
  const launchedAt = Date.now()
  const start = performance.now()
  const result = await runIn(dir, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'], env)
  return { launchedAt, wallMs: performance.now() - start, ...result }
}

/** Vitest's own breakdown line (`Duration 2.1s (transform …, setup …, import …, tests …)`), squeezed. */
const durationOf = (output: string) => (/Duration\s+(.*)/.exec(output)?.[1] ?? '?').replace(/\s+/g, '')

/**
 * A judged run split by the fake judge's arrival times (an answer comes L after a 200 arrival): the judge span
 * (first request to last answer), launch to the first request, and the last answer to the run's end. Both ends
 * are on the fake judge's clock (`startedAt + at`), the clock `launchedAt` is read on. No calls: span 0.
 */
function judgeWindow(fake: FakeJudge, run: Timed): { span: number; head: number; tail: number } {
  const calls = fake.calls
  if (calls.length === 0) return { span: 0, head: Number.NaN, tail: Number.NaN }
  const first = fake.startedAt + Math.min(...calls.map((c) => c.at))
  const lastAnswer = fake.startedAt + Math.max(...calls.map((c) => c.at + (c.status === 200 ? L : 0)))
  return { span: lastAnswer - first, head: first - run.launchedAt, tail: run.launchedAt + run.wallMs - lastAnswer }
}

function reportVerdicts(dir: string): number {
  const file = join(dir, 'agent-verdict-report.json')
  if (!existsSync(file)) return 0
  const report = JSON.parse(readFileSync(file, 'utf8')) as { tests: Array<{ verdicts: unknown[] }> }
  return report.tests.reduce((n, t) => n + t.verdicts.length, 0)
}

function importMs(packageDir: string, entry: string): number {
  const dir = project(packageDir, { 'package.json': '{"type":"module"}' })
  // Outside a Vitest worker the entry's first call into the runner (inject, a hook) throws after its static
  // import graph has loaded: the time to that point is the import cost.
  const script = `await import('vitest'); const t = performance.now(); let e; try { await import('agent-verdict/${entry}') } catch (x) { e = x } ; const ms = performance.now() - t; if (!e || !/Vitest failed to (find|access)/.test(String(e.message))) console.error(e); console.log(ms)`
  const times: number[] = []
  try {
    for (let i = 0; i < 5; i++)
      times.push(
        Number(
          execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' })
            .trim()
            .split('\n')
            .pop(),
        ),
      )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return times.sort((a, b) => a - b)[2]
}

export async function run(emit: Emit): Promise<void> {
  const pkg = await packageUnderTest()
  const { config, setup } = evalConfig(pkg.dir)
  const evalDir = project(pkg.dir, {
    'package.json': '{"type":"module"}',
    'vitest.config.ts': config,
    'answers.eval.ts': evalFile(),
  })
  const plainDir = project(pkg.dir, {
    'package.json': '{"type":"module"}',
    'vitest.config.ts': `import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ test: { include: ['**/*.test.ts'] } })\n`,
    'trivial.test.ts': plainFile(),
  })
  const fake = await startFakeJudge({
    latencyMs: L,
    defaultVerdict: { verdict: 'pass', reason: 'Matches the reference.' },
  })
  const env = { AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`, AGENT_VERDICT_MODE: 'live' }
  try {
    // Warm-up runs (Vite's transform cache, the OS file cache), not measured.
    await vitest(plainDir, {})
    await vitest(evalDir, env)
    fake.reset()

    // Five alternated pairs (plain, then judged): a pair shares the machine's mood, and the median pair is
    // reported, so one slow moment on a noisy 2-core machine does not decide the figure.
    const pairs: Array<{
      plain: Timed
      judged: Timed
      span: number
      head: number
      tail: number
      peak: number
      calls: number
      verdicts: number
    }> = []
    for (let i = 0; i < PAIRS; i++) {
      const plain = await vitest(plainDir, {})
      if (plain.code !== 0) throw new Error(`plain suite failed:\n${plain.output}`)
      fake.reset()
      const judged = await vitest(evalDir, env)
      if (judged.code !== 0) throw new Error(`eval suite failed:\n${judged.output}`)
      pairs.push({
        plain,
        judged,
        ...judgeWindow(fake, judged),
        peak: fake.stats.maxInFlight,
        calls: fake.calls.length,
        verdicts: reportVerdicts(evalDir),
      })
    }
    const ideal = Math.ceil(N / C) * L
    const bySpan = [...pairs].sort((a, b) => a.span - b.span)
    const d = bySpan[Math.floor(PAIRS / 2)]
    emit(
      'suite.default.ratio',
      d.span / ideal,
      `judge_span_ms=${d.span.toFixed(0)} ideal_ms=${ideal} peak_in_flight=${Math.min(...pairs.map((p) => p.peak))} calls=${d.calls} verdicts=${d.verdicts}/${N} wall_ms=${d.judged.wallMs.toFixed(0)} setup=${setup} vitest:${durationOf(d.judged.output)} all=${pairs.map((p) => (p.span / ideal).toFixed(3)).join(',')}`,
    )
    const overheadOf = (p: (typeof pairs)[number]) => (p.judged.wallMs - p.span) / p.plain.wallMs
    const byOverhead = [...pairs].sort((a, b) => overheadOf(a) - overheadOf(b))
    const o = byOverhead[Math.floor(PAIRS / 2)]
    emit(
      'suite.overhead.ratio',
      overheadOf(o),
      `overhead_ms=${(o.judged.wallMs - o.span).toFixed(0)} (launch to first request ${o.head.toFixed(0)}, last answer to end ${o.tail.toFixed(0)}) plain_wall_ms=${o.plain.wallMs.toFixed(0)} (${N} trivial async tests) plain_vitest:${durationOf(o.plain.output)} all=${pairs.map((p) => overheadOf(p).toFixed(2)).join(',')}`,
    )

    // The run's fixed cost in ms (issue 37's goal ≤ 800): wall minus judge span, the median pair's; beside it the
    // wall of the plain Vitest suite, Vitest's own share of it.
    const fixed = (p: (typeof pairs)[number]) => p.judged.wallMs - p.span
    const f = [...pairs].sort((a, b) => fixed(a) - fixed(b))[Math.floor(PAIRS / 2)]
    emit(
      'suite.overhead_ms',
      Math.round(fixed(f)),
      `wall ${f.judged.wallMs.toFixed(0)} − judge span ${f.span.toFixed(0)}; plain Vitest suite beside it ${f.plain.wallMs.toFixed(0)} ms, so ${(fixed(f) - f.plain.wallMs).toFixed(0)} ms above plain (goal ≤ 800 for the fixed cost) all=${pairs.map((p) => fixed(p).toFixed(0)).join(',')}`,
    )

    fake.reset()
    // The outage starts with the first request (setFaults restarts the `firstMs` window), not at Vitest's start.
    fake.setFaults([{ type: 'server-error', status: 503 }])
    const poll = setInterval(() => {
      if (fake.calls.length === 0) return
      clearInterval(poll)
      fake.setFaults([
        { type: 'server-error', status: 503, firstMs: 2000 },
        { type: 'rate-limit', rate: 0.1, seed: 7, retryAfter: '0.2' },
      ])
    }, 5)
    const faulty = await vitest(evalDir, env).finally(() => clearInterval(poll))
    if (faulty.code !== 0)
      process.stderr.write(
        `bench suite: the outage run failed:\n${faulty.output
          .split('\n')
          .filter((l) => /FAIL|Error|×/.test(l))
          .slice(0, 20)
          .join('\n')}\n`,
      )
    const kept = reportVerdicts(evalDir)
    emit(
      'suite.outage.lost',
      N - kept,
      `exit=${faulty.code} 429=${fake.stats.byStatus['429'] ?? 0} 503=${fake.stats.byStatus['503'] ?? 0} calls=${fake.calls.length} wall_ms=${faulty.wallMs.toFixed(0)}`,
    )
    const hasLight = existsSync(join(pkg.dir, 'dist', 'vitest-setup.js'))
    emit(
      'setup.import_ms',
      importMs(pkg.dir, hasLight ? 'vitest-setup' : 'vitest'),
      `agent-verdict/${hasLight ? 'vitest-setup (the plugin’s entry)' : 'vitest'} in a fresh process, after vitest; median of 5${hasLight ? `; agent-verdict/vitest ${importMs(pkg.dir, 'vitest').toFixed(1)}` : ''}`,
    )
  } finally {
    await fake.close()
    for (const dir of [evalDir, plainDir]) rmSync(dir, { recursive: true, force: true })
    if (pkg.built === 'private build') rmSync(pkg.dir, { recursive: true, force: true })
  }
}
