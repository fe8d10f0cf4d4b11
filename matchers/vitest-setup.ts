// `agent-verdict/vitest-setup` — the setup file `agent-verdict/vitest-plugin` adds: the same matchers and
// runtime as `agent-verdict/vitest`, with the code behind the matchers loaded in the background
// (matchers/vitest-setup-run.ts holds it all).
//
// Vitest runs a setup file through its module runner before each test file, never natively: the file is
// transformed in Vitest's main process, and each of its imports costs a round trip to that process, one after
// the other. This file has one import (the build keeps it so, see tsup.config.ts), so the code and its chunks
// are imported by Node directly, once per worker; the per-file work is the one call (decision 0031).
import { setUpTestFile } from './vitest-setup-run'
import type { AgentVerdictMatchers } from './types'

setUpTestFile()

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the augmentation must repeat Vitest's own `T = any`
  interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {}
}
