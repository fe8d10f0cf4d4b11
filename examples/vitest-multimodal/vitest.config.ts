import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['*.test.ts'],
    setupFiles: ['agent-verdict/vitest'],
    reporters: ['default', 'agent-verdict/reporter'],
    // A real vision judge can take a while per call.
    testTimeout: 120_000,
  },
})
