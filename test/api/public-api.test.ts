// The public surface of each package entry, as a reviewed file: adding, removing or changing the kind of an
// export changes `api-report/<entry>.api.txt`, so the change shows in the PR diff. Regenerate with
// `npx vitest run test/api -u` after a deliberate change (CI fails on any difference).
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The entries of package.json `exports`, by the source file tsup builds them from (tsup.config.ts). */
const ENTRIES: Record<string, string> = {
  'agent-verdict': 'src/index.ts',
  'agent-verdict/vitest': 'matchers/vitest.ts',
  'agent-verdict/vitest-setup': 'matchers/vitest-setup.ts',
  'agent-verdict/jest': 'matchers/jest.ts',
  'agent-verdict/reporter': 'reporters/vitest-reporter.ts',
  'agent-verdict/jest-reporter': 'reporters/jest-reporter.ts',
  'agent-verdict/testing': 'src/testing/index.ts',
  'agent-verdict/vitest-plugin': 'runner/vitest-plugin.ts',
  'agent-verdict/global-setup': 'runner/global-setup.ts',
  'agent-verdict/record': 'runner/record.ts',
}

function kindOf(checker: ts.TypeChecker, symbol: ts.Symbol): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
  const f = target.flags
  const kinds: string[] = []
  if (f & ts.SymbolFlags.Class) kinds.push('class')
  else if (f & ts.SymbolFlags.Function) kinds.push('function')
  else if (f & ts.SymbolFlags.Enum) kinds.push('enum')
  else if (f & ts.SymbolFlags.Variable) kinds.push('const')
  if (f & ts.SymbolFlags.Interface) kinds.push('interface')
  if (f & ts.SymbolFlags.TypeAlias) kinds.push('type')
  if (f & ts.SymbolFlags.Module) kinds.push('namespace')
  return kinds.join('+') || 'other'
}

const program = ts.createProgram(
  Object.values(ENTRIES).map((f) => resolve(root, f)),
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  },
)
const checker = program.getTypeChecker()

test('every package.json export is reviewed here', async () => {
  const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
    exports: Record<string, unknown>
  }
  const exported = Object.keys(pkg.exports)
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? 'agent-verdict' : `agent-verdict/${k.slice(2)}`))
  expect(Object.keys(ENTRIES).sort()).toEqual(exported.sort())
})

test.each(Object.entries(ENTRIES))('%s exports exactly its reviewed API', async (entry, file) => {
  const source = program.getSourceFile(resolve(root, file))!
  const moduleSymbol = checker.getSymbolAtLocation(source)
  const names = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []
  const lines = names.map((s) => `${s.getName()}: ${kindOf(checker, s)}`).sort()
  const report = `# ${entry} (${file}) — ${lines.length} exports\n${lines.join('\n')}\n`
  await expect(report).toMatchFileSnapshot(resolve(root, 'api-report', `${entry.replace('/', '__')}.api.txt`))
})
