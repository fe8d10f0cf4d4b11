// Editor hovers on `expect(x).toBeCorrect(…)` show the matcher function's own JSDoc: the runner types are
// computed from the matcher table (matchers/types.ts), and a mapped type only keeps docs when it maps over
// the documented declarations. Checked with the TypeScript language service, as an editor asks it.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'
import { matchers } from '../../matchers/index'

const root = fileURLToPath(new URL('../..', import.meta.url))
const probe = `${root}test/types/__hover-probe__.ts`
const names = Object.keys(matchers)
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

const lines = [
  "import type {} from '../../matchers/vitest'",
  "import type {} from '../../matchers/jest'",
  "import { expect } from 'vitest'",
  "import { expect as jestExpect } from '@jest/globals'",
  "import '../fixtures/new-matcher/to-be-polite'",
  ...names.map((n) => `expect('x').${n}`),
  ...names.map((n) => `jestExpect('x').${n}`),
  "expect('x').toBePolite",
]
const files = new Map<string, string>([[probe, lines.join('\n')]])
const config = ts.getParsedCommandLineOfConfigFile(
  `${root}tsconfig.json`,
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
)!
const read = (f: string) => files.get(f) ?? (existsSync(f) ? readFileSync(f, 'utf8') : undefined)
const service = ts.createLanguageService({
  getScriptFileNames: () => [probe],
  getScriptVersion: () => '1',
  getScriptSnapshot: (f) => {
    const text = read(f)
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text)
  },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => config.options,
  getDefaultLibFileName: ts.getDefaultLibFilePath,
  fileExists: (f) => files.has(f) || ts.sys.fileExists(f),
  readFile: read,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
})

/** The documentation an editor shows when hovering the identifier at the end of `text` in `file`. */
function docsAt(file: string, text: string): string {
  const source = read(file)!
  const at = source.indexOf(text)
  if (at < 0) throw new Error(`${text} not in ${file}`)
  const info = service.getQuickInfoAtPosition(file, at + text.length - 1)
  return ts.displayPartsToString(info?.documentation)
}

/** The JSDoc of the matcher function itself, hovered in its own module. */
const ownDocs = (name: string) => docsAt(`${root}matchers/${kebab(name)}.ts`, `export function ${name}`)

describe('hover docs of every matcher survive the derived runner types', () => {
  test.each(names)('%s, under Vitest and Jest', (name) => {
    const own = ownDocs(name)
    expect(own.length).toBeGreaterThan(20) // the function is documented (so the comparison is not vacuous)
    expect(docsAt(probe, `expect('x').${name}`)).toBe(own)
    expect(docsAt(probe, `jestExpect('x').${name}`)).toBe(own)
  })

  test('a matcher of your own, typed with MatchersOf over its module, shows its JSDoc too', () => {
    expect(docsAt(probe, "expect('x').toBePolite")).toBe(
      'Passes when a support reply is polite: it thanks the customer and never blames them.',
    )
  })

  test('the probe type-checks, so the hovers are on real members', () => {
    const errors = service
      .getSemanticDiagnostics(probe)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    expect(errors).toEqual([])
  })
})
