import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'tsup'

/**
 * Writes the built setup entries as their sources are, each importing the half built beside it: one or two
 * imports for Vitest's module runner instead of every chunk esbuild hoists into an entry (decision 0031).
 * test/e2e/setup-imports.test.ts checks the files; a build into another directory calls this for it.
 *
 * @example
 * rewriteSetupEntries('dist')
 */
export function rewriteSetupEntries(outDir: string): void {
  const files: Record<string, string> = {
    // matchers/vitest-setup.ts
    'vitest-setup.js': 'import { setUpTestFile } from "./vitest-setup-run.js";\nsetUpTestFile();\n',
    'vitest-setup.cjs': '"use strict";\nrequire("./vitest-setup-run.cjs").setUpTestFile();\n',
    // matchers/vitest.ts
    'vitest.js':
      'import { setUpVitestFile } from "./vitest-run.js";\nsetUpVitestFile();\nexport * from "./vitest-api.js";\n',
    'vitest.cjs':
      '"use strict";\nrequire("./vitest-run.cjs").setUpVitestFile();\nmodule.exports = require("./vitest-api.cjs");\n',
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(join(outDir, name), text)
}

// One build, two formats: ESM for modern projects and CJS for Jest setups that still require().
// See docs/decisions/0001-build-with-tsup.md.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    vitest: 'matchers/vitest.ts',
    // Not package exports: the two halves of agent-verdict/vitest, files of their own so the entry has two imports.
    'vitest-run': 'matchers/vitest-run.ts',
    'vitest-api': 'matchers/api.ts',
    'vitest-setup': 'matchers/vitest-setup.ts',
    // Not a package export: the body of vitest-setup, a separate file so that the setup entry has one import.
    'vitest-setup-run': 'matchers/vitest-setup-run.ts',
    'vitest-plugin': 'runner/vitest-plugin.ts',
    jest: 'matchers/jest.ts',
    record: 'runner/record.ts',
    reporter: 'reporters/vitest-reporter.ts',
    'jest-reporter': 'reporters/jest-reporter.ts',
    testing: 'src/testing/index.ts',
    'global-setup': 'runner/global-setup.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'node20',
  // No source maps: they pointed stacks at src/… files the tarball does not hold; dist/ is readable JS (decision 0001).
  sourcemap: false,
  splitting: true,
  shims: true,
  // Bundled: the OpenAI SDK (not a dependency) and zod (a dependency for the declarations, which import it): one file
  // each loads in a fraction of the time of their hundreds (decisions 0031, 0052).
  noExternal: ['zod', 'openai'],
  external: ['vitest', 'jest', '@jest/globals', '@jest/reporters', 'vitest/node', 'vitest/config', 'vitest/reporters'],
  // Vitest runs a setup file through its module runner: each of the file's imports is a round trip to Vitest's
  // main process, one after another. esbuild hoists every chunk the body needs into the entry (15–25 imports),
  // so the two setup entries are rewritten to the statements of their sources (decision 0031).
  onSuccess: async () => rewriteSetupEntries('dist'),
})
