import { writeFileSync } from 'node:fs'
import { defineConfig } from 'tsup'

// One build, two formats: ESM for modern projects and CJS for Jest setups that still require().
// See docs/decisions/0001-build-with-tsup.md.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    vitest: 'matchers/vitest.ts',
    'vitest-setup': 'matchers/vitest-setup.ts',
    // Not a package export: the body of vitest-setup, a separate file so that the setup entry has one import.
    'vitest-setup-run': 'matchers/vitest-setup-run.ts',
    'vitest-plugin': 'matchers/vitest-plugin.ts',
    jest: 'matchers/jest.ts',
    reporter: 'reporters/vitest-reporter.ts',
    'jest-reporter': 'reporters/jest-reporter.ts',
    testing: 'src/testing/index.ts',
    'global-setup': 'matchers/global-setup.ts',
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
  // zod and the OpenAI SDK are bundled: one file each loads in a fraction of the time of their hundreds (decision 0031).
  noExternal: ['zod', 'openai'],
  external: ['vitest', 'jest', '@jest/globals', '@jest/reporters', 'vitest/node', 'vitest/config', 'vitest/reporters'],
  // Vitest runs a setup file through its module runner: each of the file's imports is a round trip to Vitest's
  // main process, one after another. esbuild hoists every chunk the body needs into the entry (15 imports), so
  // the entry is rewritten to its one import; the body and its chunks then load natively (decision 0031).
  onSuccess: async () => {
    // The same two statements as matchers/vitest-setup.ts (test/e2e/setup-imports.test.ts checks the built files).
    writeFileSync('dist/vitest-setup.js', 'import { setUpTestFile } from "./vitest-setup-run.js";\nsetUpTestFile();\n')
    writeFileSync('dist/vitest-setup.cjs', '"use strict";\nrequire("./vitest-setup-run.cjs").setUpTestFile();\n')
  },
})
