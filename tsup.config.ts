import { defineConfig } from 'tsup'

// One build, two formats: ESM for modern projects and CJS for Jest setups that still require().
// See docs/decisions/0001-build-with-tsup.md.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    vitest: 'matchers/vitest.ts',
    'vitest-setup': 'matchers/vitest-setup.ts',
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
})
