// `agent-verdict/vitest` — a Vitest `setupFiles` entry: registers the matchers, wires the runtime
// (cassette per test file, verdicts on task.meta, un-awaited guard) and adds the matcher types.
import { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi } from 'vitest'
import { prewarmJudge } from '../src/judges/prewarm'
import { matchers } from './index'
import { finishFile } from './test-judge'
import type { AgentVerdictMatchers } from './types'
import { installVitestRuntime } from './vitest-install'

expect.extend(matchers)

installVitestRuntime(
  { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi },
  {
    finishFile: () => finishFile,
    // This file will call the judge: load its client while Vitest is still loading the file, not in the first test.
    onEvalFile: () => void prewarmJudge(),
  },
)

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the augmentation must repeat Vitest's own `T = any`
  interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {}
}

// The entry's API, by name (shared with the other runner entry).
export * from './api'
