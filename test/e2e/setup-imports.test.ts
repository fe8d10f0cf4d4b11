// Issue 18: a setup entry costs what it uses. Importing `agent-verdict/vitest` or `agent-verdict/vitest-setup`
// must not load a provider SDK (the OpenAI SDK, bundled into dist/ since decision 0031, or the Bedrock
// client): they load on an eval file's warm-up or its first judge call. `agent-verdict/vitest-setup`, the
// plugin's entry, must not load zod or the judge code either: they load behind it, in the background.
// Checked on the built package two ways: the static import graph, and the files a fresh Node process loads.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageUnderTest, repo } from './user-project'

const SDK = /^(openai|@aws-sdk\/|@smithy\/)/

let packageDir: string
const cleanup: string[] = []

beforeAll(async () => {
  const pkg = await packageUnderTest()
  packageDir = pkg.dir
  if (pkg.built === 'private build') cleanup.push(pkg.dir)
}, 120_000)

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

/** Build files whose text contains `marker`: where a bundled dependency ended up. */
function filesWith(marker: string): string[] {
  const dist = join(packageDir, 'dist')
  return readdirSync(dist).filter((f) => f.endsWith('.js') && readFileSync(join(dist, f), 'utf8').includes(marker))
}
/** The bundled OpenAI SDK (its retry header) and zod (its base schema class). */
const openaiFiles = () => filesWith('X-Stainless-Retry-Count')
const zodFiles = () => filesWith('$ZodType')

/** Files and bare specifiers reached through static `import … from` / `export … from` / `import '…'` of an ESM build file. */
function staticGraph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>()
  const bare = new Set<string>()
  const walk = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/^\s*(?:import|export)\s*(?:[^'"()]*?\sfrom\s*)?["']([^"']+)["']/gm)) {
      if (m[1].startsWith('.')) walk(join(dirname(file), m[1]))
      else bare.add(m[1])
    }
  }
  walk(join(packageDir, 'dist', entry))
  return { files: new Set([...files].map((f) => basename(f))), bare }
}

/** What a fresh process loads when it imports `specifier` (after vitest), until the import settles. */
function loadedBy(specifier: string, then?: string): { loaded: string[]; resolved: string[]; error: string } {
  const dir = mkdtempSync(join(tmpdir(), 'av-setup-imports-'))
  cleanup.push(dir)
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(packageDir, join(dir, 'node_modules', 'agent-verdict'), 'dir')
  symlinkSync(join(repo, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'dir')
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}')
  const hooks = `let port; export function initialize(data) { port = data.port }
export async function resolve(specifier, context, next) { port.postMessage(['resolve', specifier]); return next(specifier, context) }
export async function load(url, context, next) { port.postMessage(['load', url]); return next(url, context) }`
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
const { port1, port2 } = new MessageChannel()
const loaded = [], resolved = []
let counting = false
port1.on('message', ([kind, what]) => { if (counting) (kind === 'load' ? loaded : resolved).push(what) })
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] })
await import('vitest')
await new Promise((r) => setTimeout(r, 50))
counting = true
let error
// Outside a Vitest worker the entry's first runner call throws, after its static import graph loaded.
try { await import(${JSON.stringify(specifier)}) } catch (e) { error = e }
${then ? `await import(${JSON.stringify(then)})` : ''}
await new Promise((r) => setTimeout(r, 50))
port1.close()
console.log(JSON.stringify({ loaded, resolved, error: String(error?.message ?? '') }))
`,
  )
  const out = execFileSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()!
  return JSON.parse(out) as { loaded: string[]; resolved: string[]; error: string }
}

describe('the Vitest setup entries as built', () => {
  it('the SDKs are in the build, behind import() (so the checks below are not vacuous)', () => {
    expect(openaiFiles()).toHaveLength(1)
    expect(zodFiles().length).toBeGreaterThan(0)
    const everything = readdirSync(join(packageDir, 'dist'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(packageDir, 'dist', f), 'utf8'))
      .join('\n')
    expect(everything).toMatch(new RegExp(`import\\(["']\\./${openaiFiles()[0].replace('.', '\\.')}["']\\)`))
    expect(everything).toMatch(/import\(["']@aws-sdk\/client-bedrock-runtime["']\)/)
  })

  for (const entry of ['vitest.js', 'vitest-setup.js']) {
    it(`${entry} imports no provider SDK statically`, () => {
      const graph = staticGraph(entry)
      expect(graph.bare).toContain('vitest') // the walk does reach the entry's imports
      expect([...graph.bare].filter((s) => SDK.test(s))).toEqual([])
      expect(openaiFiles().filter((f) => graph.files.has(f))).toEqual([])
    })
  }

  it('vitest-setup.js (the plugin’s entry) does not import zod or the judge code statically: they load behind it', () => {
    const graph = staticGraph('vitest-setup.js')
    expect(zodFiles().filter((f) => graph.files.has(f))).toEqual([])
    // While agent-verdict/vitest, the API entry, does (so the check is not vacuous).
    const api = staticGraph('vitest.js')
    expect(zodFiles().filter((f) => api.files.has(f)).length).toBeGreaterThan(0)
  })

  it('a fresh process importing agent-verdict/vitest loads no provider SDK', () => {
    const out = loadedBy('agent-verdict/vitest')
    expect(out.error).toMatch(/Vitest failed to (find|access its internal)/) // every import ran
    expect(out.resolved).toContain('agent-verdict/vitest')
    expect(out.resolved.filter((s) => SDK.test(s))).toEqual([])
    expect(out.loaded.filter((u) => openaiFiles().some((f) => u.endsWith(`/${f}`)))).toEqual([])
    expect(out.loaded.filter((u) => zodFiles().some((f) => u.endsWith(`/${f}`))).length).toBeGreaterThan(0)
  })

  /** The two groups of matcher code vitest-setup loads behind it (matchers/lazy-matchers.ts). */
  const loader = (group: 'output' | 'trace') => {
    const file = readdirSync(join(packageDir, 'dist')).find((f) =>
      new RegExp(`^vitest-load-${group}-[^/]+\\.js$`).test(f),
    )
    expect(file, `dist/vitest-load-${group}-*.js`).toBeDefined()
    return file!
  }

  for (const group of ['output', 'trace'] as const)
    it(`a fresh process importing agent-verdict/vitest-setup loads no provider SDK, nor does the ${group} matchers' code it loads for a test file`, () => {
      // Outside a worker the entry stops at its first runner call, before it decides to load the matchers' code;
      // the probe then loads that code itself, as the entry does for a test file that uses the matchers.
      const load = loader(group)
      const out = loadedBy('agent-verdict/vitest-setup', join(packageDir, 'dist', load))
      expect(out.error).toMatch(/Vitest failed to (find|access its internal)/)
      expect(out.resolved.filter((s) => SDK.test(s))).toEqual([])
      expect(out.loaded.filter((u) => openaiFiles().some((f) => u.endsWith(`/${f}`)))).toEqual([])
      // The judge code, zod with it, did load: the check above saw it, without the SDK.
      expect(out.loaded.some((u) => u.endsWith(`/${load}`))).toBe(true)
      expect(out.loaded.filter((u) => zodFiles().some((f) => u.endsWith(`/${f}`))).length).toBeGreaterThan(0)
    })

  it("the output matchers' code does not bring the trace matchers' (span diagnosis, detectors, trace readers)", () => {
    const output = staticGraph(loader('output')).files
    const trace = staticGraph(loader('trace')).files
    // Marker texts of trace-only modules, found in the trace group's graph (so the check is not vacuous).
    const traceOnly = (marker: string) =>
      [...trace].filter((f) => readFileSync(join(packageDir, 'dist', f), 'utf8').includes(marker))
    for (const marker of ['// src/diagnosis/diagnose.ts', '// src/metrics/detectors/index.ts', '// src/trace/']) {
      expect(traceOnly(marker).length, marker).toBeGreaterThan(0)
      expect(
        traceOnly(marker).filter((f) => output.has(f)),
        marker,
      ).toEqual([])
    }
  })

  it('the setup entries have one or two imports, so Vitest’s module runner (which runs setup files) makes one or two round trips', () => {
    // Vitest transforms a setup file in its main process and fetches each of its imports from there, one after
    // another; everything behind them loads natively. The build rewrites the entries (tsup.config.ts).
    for (const [file, body] of [
      ['vitest-setup.js', 'import { setUpTestFile } from "./vitest-setup-run.js";\nsetUpTestFile();\n'],
      ['vitest-setup.cjs', '"use strict";\nrequire("./vitest-setup-run.cjs").setUpTestFile();\n'],
      [
        'vitest.js',
        'import { setUpVitestFile } from "./vitest-run.js";\nsetUpVitestFile();\nexport * from "./vitest-api.js";\n',
      ],
      [
        'vitest.cjs',
        '"use strict";\nrequire("./vitest-run.cjs").setUpVitestFile();\nmodule.exports = require("./vitest-api.cjs");\n',
      ],
    ])
      expect(readFileSync(join(packageDir, 'dist', file), 'utf8')).toBe(body)
    expect(staticGraph('vitest-setup-run.js').bare).toContain('vitest') // the bodies are where the code is
    expect(staticGraph('vitest-run.js').bare).toContain('vitest')
  })

  it('agent-verdict/vitest, rewritten, still exports its whole API (ESM and CommonJS)', async () => {
    // Loading the entry itself runs its setup call, which needs a Vitest worker: its API half is checked instead.
    const expected = Object.keys(await import('../../matchers/api')).sort()
    expect(expected).toContain('matchers')
    expect(Object.keys(await import(join(packageDir, 'dist', 'vitest-api.js'))).sort()).toEqual(expected)
    const cjs = execFileSync(
      process.execPath,
      [
        '-e',
        `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(join(packageDir, 'dist', 'vitest-api.cjs'))})).sort()))`,
      ],
      { encoding: 'utf8' },
    )
    expect(JSON.parse(cjs)).toEqual(expected)
  })
})
