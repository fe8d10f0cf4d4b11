// The docs as a newcomer meets them: README.md short, every relative link and anchor in README.md and docs/
// resolving, every block marked for the e2e tests one an e2e test runs, and the reference guides complete
// (every AGENT_VERDICT_* variable the code reads, every exported error class).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, normalize } from 'node:path'
import { describe, expect, test } from 'vitest'
import { repo } from '../e2e/user-project'
import { allMarkedBlocks, anchors, links, markdownFiles, markedBlocks, slug } from '../support/docs-markdown'

const read = (file: string) => readFileSync(join(repo, file), 'utf8')

/** Every broken relative link of one file, as `file:line target — why`. */
function brokenLinks(file: string, text: string, readFile: (path: string) => string | undefined): string[] {
  const out: string[] = []
  for (const { target, line } of links(text)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue // https:, mailto: …
    const [path, anchor] = target.split('#', 2)
    const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)))
    const content = readFile(resolved)
    if (content === undefined) {
      out.push(`${file}:${line} ${target} — no file ${resolved}`)
      continue
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !anchors(content).has(anchor))
      out.push(`${file}:${line} ${target} — no heading with anchor #${anchor} in ${resolved}`)
  }
  return out
}

function repoFile(path: string): string | undefined {
  const full = join(repo, path)
  if (!existsSync(full)) return undefined
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8')
}

describe('the link checker', () => {
  test('makes anchors by GitHub rules', () => {
    expect(slug('Cassettes: verdicts as snapshots')).toBe('cassettes-verdicts-as-snapshots')
    expect(slug("Vite's CommonJS warning")).toBe('vites-commonjs-warning')
    expect(slug('A statistical gate: suite gates, diffs, trials, calibration')).toBe(
      'a-statistical-gate-suite-gates-diffs-trials-calibration',
    )
    expect(slug('`toHaveNoFailingSpans` and [spans](x.md)')).toBe('tohavenofailingspans-and-spans')
    expect(slug('Judges (OpenAI, Bedrock) — 2 of 3')).toBe('judges-openai-bedrock--2-of-3')
    expect(slug('CassetteError_2')).toBe('cassetteerror_2')
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n### A')]).toEqual(['a', 'a-1', 'a-2'])
  })

  test('catches a missing file, a missing anchor and a link to its own missing heading, not code', () => {
    const doc = [
      '# Title',
      '[ok](#title) [ok2](other.md#there) [web](https://example.com/x#y)',
      '[gone](missing.md) [bad](other.md#nowhere) [self](#nope)',
      '`[code](missing.md)`',
      '```',
      '[fenced](missing.md)',
      '```',
    ].join('\n')
    const files: Record<string, string> = { 'docs/a.md': doc, 'docs/other.md': '## There' }
    expect(brokenLinks('docs/a.md', doc, (p) => files[p])).toEqual([
      'docs/a.md:3 missing.md — no file docs/missing.md',
      'docs/a.md:3 other.md#nowhere — no heading with anchor #nowhere in docs/other.md',
      'docs/a.md:3 #nope — no heading with anchor #nope in docs/a.md',
    ])
  })
})

describe('README.md and docs/', () => {
  const files = markdownFiles()

  test('the README fits on a few screens: at most 250 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250)
  })

  test('the README starts with the two commands, and CI runs its test command', () => {
    const first = /```sh\n([\s\S]*?)```/.exec(read('README.md'))?.[1] ?? ''
    const [main, tests] = first.trim().split('\n')
    expect(main).toMatch(/^npm ci && npx agent-verdict diagnose examples\/traces\b/)
    expect(tests).toMatch(/^npm test\b/)
    expect(read('.ci/run')).toMatch(/^npm test$/m)
  })

  test('every relative link names a file that exists, and every #anchor a heading in it', () => {
    expect(files.length).toBeGreaterThan(10)
    expect(files.flatMap((f) => brokenLinks(f, read(f), repoFile))).toEqual([])
  })

  test('every block marked <!-- e2e: NAME --> is one an e2e test reads, and its copies are identical', () => {
    const blocks = allMarkedBlocks()
    expect(blocks.length).toBeGreaterThan(0)
    const e2eDir = join(repo, 'test/e2e')
    const e2eSource = readdirSync(e2eDir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(join(e2eDir, f), 'utf8'))
      .join('\n')
    // The names the e2e tests run: docBlock('name'), commands('name') or fileBlock('name').
    const read = new Set(
      [...e2eSource.matchAll(/\b(?:docBlock|commands|fileBlock)\(\s*'([a-z0-9-]+)'/g)].map((m) => m[1]),
    )
    for (const m of e2eSource.matchAll(/for \(const name of \[([^\]]*)\]/g))
      for (const n of m[1].matchAll(/'([a-z0-9-]+)'/g)) read.add(n[1])
    const unrun = blocks.filter((b) => !read.has(b.name)).map((b) => `${b.file}:${b.line} e2e: ${b.name}`)
    expect(unrun, 'marked blocks no e2e test reads').toEqual([])
    const missing = [...read].filter((name) => !blocks.some((b) => b.name === name))
    expect(missing, 'names the e2e tests read that no doc marks').toEqual([])
    for (const block of blocks) {
      const first = blocks.find((b) => b.name === block.name)
      expect(block.text, `${block.file}:${block.line} differs from ${first?.file}:${first?.line}`).toBe(first?.text)
    }
  })

  test('a marker that marks no code block is an error, not a silent pass', () => {
    expect(() => markedBlocks('<!-- e2e: lonely -->\nprose\n', 'x.md')).toThrow(/not followed by a fenced code block/)
    expect(() => markedBlocks('<!-- e2e:Bad Name -->\n```sh\nx\n```\n', 'x.md')).toThrow(/malformed marker/)
    expect(markedBlocks('<!-- e2e: one -->\n```sh\nnpm test\n```\n', 'x.md')).toEqual([
      { file: 'x.md', name: 'one', lang: 'sh', text: 'npm test\n', line: 2 },
    ])
  })
})

describe('the reference guides are complete', () => {
  function sourceFiles(dir: string): string[] {
    return readdirSync(join(repo, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => join(e.parentPath, e.name))
  }

  test('docs/configuration.md names every AGENT_VERDICT_* variable the code reads', () => {
    const used = new Set<string>()
    for (const dir of ['src', 'matchers', 'reporters', 'runner'].filter((d) => existsSync(join(repo, d))))
      for (const file of sourceFiles(dir))
        for (const m of readFileSync(file, 'utf8').matchAll(/\bAGENT_VERDICT_[A-Z0-9_]*[A-Z0-9]\b/g)) used.add(m[0])
    expect(used.size).toBeGreaterThan(10)
    const doc = read('docs/configuration.md')
    expect([...used].filter((name) => !doc.includes(`\`${name}\``)).sort()).toEqual([])
  })

  test('docs/troubleshooting.md has a section for every exported error class', () => {
    const classes = new Set<string>()
    for (const file of readdirSync(join(repo, 'api-report')))
      for (const m of read(`api-report/${file}`).matchAll(/^(\w+Error): class$/gm)) classes.add(m[1])
    expect(classes.size).toBeGreaterThan(10)
    const headings = anchors(read('docs/troubleshooting.md'))
    expect([...classes].filter((c) => !headings.has(slug(c))).sort()).toEqual([])
  })

  test("docs/architecture.md's table of src/ folders lists the arrows .dependency-cruiser.cjs enforces", () => {
    const rules = (
      createRequire(import.meta.url)(join(repo, '.dependency-cruiser.cjs')) as {
        forbidden: Array<{ name: string; comment?: string }>
      }
    ).forbidden
    const enforced = new Map<string, string[]>()
    for (const rule of rules) {
      const m = /^layer-(\w+)$/.exec(rule.name)
      if (!m) continue
      const list = /may import only: (.*) \(DESIGN\.md\)$/.exec(rule.comment ?? '')?.[1] ?? ''
      enforced.set(m[1], list === 'nothing else in src' ? [] : list.split(', ').sort())
    }
    expect(enforced.size).toBeGreaterThan(10)
    const documented = new Map<string, string[]>()
    for (const m of read('docs/architecture.md').matchAll(/^\| `(\w+)` \| [^|]+ \| ([^|]+) \|$/gm)) {
      const cell = m[2].trim()
      documented.set(m[1], cell === '—' ? [] : [...cell.matchAll(/`(\w+)`/g)].map((a) => a[1]).sort())
    }
    for (const [folder, allowed] of enforced) expect(documented.get(folder), `src/${folder}`).toEqual(allowed)
  })
})
