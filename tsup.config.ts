import { defineConfig } from 'tsup'

// One build, two formats: ESM for modern projects and CJS for Jest setups that still require().
// See docs/decisions/0001-build-with-tsup.md.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    vitest: 'matchers/vitest.ts',
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
  sourcemap: true,
  splitting: true,
  shims: true,
  external: ['vitest', 'jest', '@jest/globals', '@jest/reporters', 'vitest/node', 'vitest/reporters'],
})
