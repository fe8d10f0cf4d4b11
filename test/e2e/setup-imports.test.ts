// Issue 18: the setup entry costs what it uses. Importing `agent-verdict/vitest` must not load a provider
// SDK (openai, the Bedrock client): they load on the first judge call. Checked on the built package two
// ways: the static import graph of dist/vitest.js, and the modules a fresh Node process resolves.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
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

/** Bare specifiers reached through static `import … from` / `export … from` / `import '…'` of an ESM build file. */
function staticBareImports(entry: string): Set<string> {
  const seen = new Set<string>()
  const bare = new Set<string>()
  const walk = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/^\s*(?:import|export)\s*(?:[^'"()]*?\sfrom\s*)?["']([^"']+)["']/gm)) {
      if (m[1].startsWith('.')) walk(join(dirname(file), m[1]))
      else bare.add(m[1])
    }
  }
  walk(entry)
  return bare
}

describe('agent-verdict/vitest (the setup entry) as built', () => {
  it('imports no provider SDK statically; the judge modules load them with a dynamic import()', () => {
    const bare = [...staticBareImports(join(packageDir, 'dist/vitest.js'))]
    expect(bare).toContain('vitest') // the walk does reach the entry's imports
    expect(bare.filter((s) => SDK.test(s))).toEqual([])
    // The SDKs are still in the build, behind import() (so the check above is not vacuous).
    const chunks = [...staticBareImports(join(packageDir, 'dist/index.js'))]
    expect(chunks.filter((s) => SDK.test(s))).toEqual([])
    const index = readFileSync(join(packageDir, 'dist/index.js'), 'utf8')
    const all =
      index +
      [...index.matchAll(/from\s*["'](\.\/chunk-[^"']+)["']/g)]
        .map((m) => readFileSync(join(packageDir, 'dist', m[1]), 'utf8'))
        .join('\n')
    expect(all).toMatch(/import\(["']openai["']\)/)
    expect(all).toMatch(/import\(["']@aws-sdk\/client-bedrock-runtime["']\)/)
  })

  it('a fresh process importing it resolves no provider SDK (a resolve hook records every specifier)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-setup-imports-'))
    cleanup.push(dir)
    mkdirSync(join(dir, 'node_modules'))
    symlinkSync(packageDir, join(dir, 'node_modules', 'agent-verdict'), 'dir')
    symlinkSync(join(repo, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'dir')
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}')
    const hooks = `let port; export function initialize(data) { port = data.port }
export async function resolve(specifier, context, next) { port.postMessage(specifier); return next(specifier, context) }`
    writeFileSync(
      join(dir, 'probe.mjs'),
      `import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
const { port1, port2 } = new MessageChannel()
const seen = []
port1.on('message', (s) => seen.push(s))
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] })
await import('vitest')
let error
// Outside a Vitest worker the entry's first hook registration throws, after its whole import graph loaded.
try { await import('agent-verdict/vitest') } catch (e) { error = e }
await new Promise((r) => setTimeout(r, 100))
port1.close()
console.log(JSON.stringify({ seen, error: String(error?.message ?? '') }))
`,
    )
    const out = JSON.parse(
      execFileSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()!,
    ) as { seen: string[]; error: string }
    expect(out.error).toMatch(/Vitest failed to (find|access its internal)/) // it got as far as the first runner call, so every import ran
    expect(out.seen).toContain('agent-verdict/vitest')
    expect(out.seen).toContain('zod') // the hook saw the entry's own imports
    expect(out.seen.filter((s) => SDK.test(s))).toEqual([])
  })
})
