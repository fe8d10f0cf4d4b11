// Cost as the suite grows: 2,000 and 10,000 replayed verdicts (one `toBeCorrect` per test) across 20 eval files,
// through the real Vitest CLI, the plugin and its reporter (JSON artifact + HTML report), on the built package.
// Each size is recorded once against the fake judge, then timed in replay mode (0 judge calls).
//  - suite.scale.<n>.wall_ms: the replayed run's wall (the faster of two, alternated between the sizes); detail: peak RSS of Vitest and its workers, the report's
//    build time (the run's JSON artifact parsed and rendered to HTML, in this process), the HTML's size.
//  - suite.scale.per_item_ratio: wall per verdict at 10k ÷ at 2k (goal ≤ 1.2: linear).
//  - report.html_bytes_10k: the 10k run's HTML report size.
//  - report.html_10k.chromium_ms: that report opened in headless Chromium (playwright-core, /usr/bin/chromium):
//    time to `load`, then the "only failing" filter toggled; skipped with a line saying why when Chromium is absent.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { renderHtml } from '../src/report/render-html'
import { startFakeJudge, type FakeJudge } from '../src/testing/fake-judge'
import { ReportSchema } from '../src/verdict/report'
import { packageUnderTest } from '../test/e2e/user-project'
import type { Emit } from './emit'
import { project } from './suite'
import { failureLines, vitestRun } from './vitest-project'

const FILES = 20
const SIZES = [2_000, 10_000]
/** Replays of each size, alternated. */
const REPLAYS = 2
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

function evalFile(file: number, tests: number): string {
  const body = Array.from({ length: tests }, (_, t) => {
    const i = file * tests + t
    return `test('answer ${i}', async () => {\n  await expect('The total is ${i} dollars.').toBeCorrect({ reference: 'Total: ${i} dollars', input: 'Total of order ${i}?' })\n})`
  })
  return `import { expect, test } from 'vitest'\n\n${body.join('\n\n')}\n`
}

interface SizeResult {
  n: number
  /** The faster of the alternated replays (the one the shared machine disturbed least). */
  wallMs: number
  walls: number[]
  peakRssMb: number
  reportMs: number
  htmlBytes: number
  verdicts: number
  htmlFile: string
}

/** A project of `n` tests across FILES eval files, recorded once against the fake judge. */
async function recorded(pkgDir: string, fake: FakeJudge, n: number): Promise<string> {
  const files: Record<string, string> = {
    'package.json': '{"type":"module"}',
    'vitest.config.ts': `import { defineConfig } from 'vitest/config'\nimport { agentVerdict } from 'agent-verdict/vitest-plugin'\n\nexport default defineConfig({ plugins: [agentVerdict({ reporter: { silent: true, html: 'report.html' } })] })\n`,
  }
  for (let f = 0; f < FILES; f++) files[`answers-${f}.eval.ts`] = evalFile(f, n / FILES)
  const dir = project(pkgDir, files)
  fake.reset()
  const run = await vitestRun(dir, { AGENT_VERDICT_JUDGE: judgeSpec(fake), AGENT_VERDICT_MODE: 'record' })
  if (run.code !== 0) throw new Error(`recording ${n} failed:\n${failureLines(run.output)}`)
  return dir
}

const judgeSpec = (fake: FakeJudge) => `openai-compatible:${fake.baseURL}#fake-judge`

async function replayed(dir: string, fake: FakeJudge, n: number): Promise<{ wallMs: number; peakRssMb: number }> {
  fake.reset()
  const run = await vitestRun(dir, { AGENT_VERDICT_JUDGE: judgeSpec(fake), AGENT_VERDICT_MODE: 'replay' })
  if (run.code !== 0) throw new Error(`replay ${n} failed:\n${failureLines(run.output)}`)
  if (fake.calls.length > 0) throw new Error(`replay ${n} made ${fake.calls.length} judge calls`)
  return run
}

/** The run's report built again from its JSON artifact (parsed, rendered to HTML), timed in this process. */
function reportOf(dir: string, n: number, runs: Array<{ wallMs: number; peakRssMb: number }>): SizeResult {
  const artifact = readFileSync(join(dir, 'agent-verdict-report.json'), 'utf8')
  const start = performance.now()
  const report = ReportSchema.parse(JSON.parse(artifact))
  renderHtml(report)
  const reportMs = performance.now() - start
  const htmlFile = join(dir, 'report.html')
  const walls = runs.map((r) => r.wallMs)
  return {
    n,
    wallMs: Math.min(...walls),
    walls,
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    reportMs,
    htmlBytes: existsSync(htmlFile) ? statSync(htmlFile).size : Number.NaN,
    verdicts: report.tests.reduce((k, t) => k + t.verdicts.length, 0),
    htmlFile,
  }
}

/** The report in headless Chromium: ms to `load`, ms to apply the "only failing" filter, and the sections shown. */
async function inChromium(htmlFile: string): Promise<{ loadMs: number; filterMs: number; sections: number } | string> {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  })
  try {
    const page = await browser.newPage()
    const start = performance.now()
    // Opened as a user opens it: the file, from disk.
    await page.goto(pathToFileURL(htmlFile).href, { waitUntil: 'load', timeout: 300_000 })
    const loadMs = performance.now() - start
    // Run in the page (a string: this project's types have no DOM). Reading offsetHeight forces the style and
    // layout the filter causes, so its cost is counted.
    const filterMs = await page.evaluate<number>(
      `(() => { const t = performance.now(); document.getElementById('only-failing').click(); void document.body.offsetHeight; return performance.now() - t })()`,
    )
    const sections = await page.evaluate<number>(`document.querySelectorAll('section.test').length`)
    return { loadMs, filterMs, sections }
  } finally {
    await browser.close()
  }
}

/**
 * Bench module `scale`: `suite.scale.2000.*`, `suite.scale.10000.*`, `suite.scale.per_item_ratio`,
 * `report.html_bytes_10k` and `report.html_10k.chromium_ms`.
 *
 * @example
 * await run((key, value, detail) => console.log(key, value, detail ?? ''))
 */
export async function run(emit: Emit): Promise<void> {
  const pkg = await packageUnderTest()
  const fake = await startFakeJudge({ defaultVerdict: { verdict: 'pass', reason: 'Matches the reference.' } })
  const dirs: string[] = []
  try {
    for (const n of SIZES) dirs.push(await recorded(pkg.dir, fake, n))
    // Replays alternate between the sizes (2k, 10k, then 10k, 2k): a machine shared with other work slows
    // whichever runs in a busy moment, and each size keeps its faster run.
    const runs: Array<Array<{ wallMs: number; peakRssMb: number }>> = SIZES.map(() => [])
    for (let round = 0; round < REPLAYS; round++) {
      const order = round % 2 === 0 ? SIZES.map((_, i) => i) : SIZES.map((_, i) => SIZES.length - 1 - i)
      for (const i of order) runs[i].push(await replayed(dirs[i], fake, SIZES[i]))
    }
    const results = SIZES.map((n, i) => reportOf(dirs[i], n, runs[i]))
    for (const r of results)
      emit(
        `suite.scale.${r.n}.wall_ms`,
        Math.round(r.wallMs),
        `${r.verdicts} verdicts replayed across ${FILES} eval files (faster of ${r.walls.map((w) => w.toFixed(0)).join(', ')} ms); peak RSS ${r.peakRssMb.toFixed(0)} MB (Vitest + workers); report build ${r.reportMs.toFixed(0)} ms (artifact parsed + HTML rendered); HTML ${(r.htmlBytes / 1e6).toFixed(2)} MB`,
      )
    const [small, large] = results
    emit(
      'suite.scale.per_item_ratio',
      large.wallMs / large.n / (small.wallMs / small.n),
      `wall per verdict at ${large.n} ÷ at ${small.n} (goal ≤ 1.2); peak RSS ratio ${(large.peakRssMb / small.peakRssMb).toFixed(2)}, report build per verdict ratio ${(large.reportMs / large.n / (small.reportMs / small.n)).toFixed(2)}`,
    )
    emit('report.html_bytes_10k', large.htmlBytes, `${(large.htmlBytes / large.verdicts).toFixed(0)} bytes per verdict`)
    const seen = await inChromium(large.htmlFile)
    if (typeof seen === 'string') emit('report.html_10k.chromium_ms', 'skipped', seen)
    else
      emit(
        'report.html_10k.chromium_ms',
        Math.round(seen.loadMs),
        `headless Chromium: ${seen.sections} test sections, to load ${seen.loadMs.toFixed(0)} ms, "only failing" filter ${seen.filterMs.toFixed(0)} ms`,
      )
  } finally {
    await fake.close()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    if (pkg.built === 'private build') rmSync(pkg.dir, { recursive: true, force: true })
  }
}
