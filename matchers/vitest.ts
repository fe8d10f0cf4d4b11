// `agent-verdict/vitest` — a Vitest `setupFiles` entry: registers the matchers, wires the runtime
// (cassette per test file, verdicts on task.meta, un-awaited guard) and adds the matcher types; and the
// runner API, for test files that import it.
//
// Vitest runs a setup file through its module runner, one round trip to its main process per import, one after
// another: the build keeps this file to two imports (tsup.config.ts), so the code behind them and its chunks
// are imported by Node directly (decision 0031).
import type { AgentVerdictMatchers } from './types'
import { setUpVitestFile } from './vitest-run'

setUpVitestFile()

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the augmentation must repeat Vitest's own `T = any`
  interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {}
}

// The entry's API, by name (shared with the other runner entry).
export * from './api'
