// `agent-verdict/vitest-setup` — the setup file `agent-verdict/vitest-plugin` adds: the same matchers and
// runtime as `agent-verdict/vitest`, but the code behind the matchers (judges, cassettes, zod schemas)
// loads in the background while Vitest loads the test file, and is awaited before the file's first test;
// a test file that names no matcher and does not import agent-verdict does not load it at all.
// No provider SDK is loaded here; an eval file warms its judge's client the same way (decision 0031).
import { readFileSync } from 'node:fs'
import { afterAll, afterEach, aroundEach, beforeAll, expect, inject, TestRunner, vi } from 'vitest'
import { prewarmJudge } from '../src/judges/prewarm'
import { lazyMatchers, loadedMatcherCode, loadMatcherCode, namesMatchers } from './lazy-matchers'
import type { AgentVerdictMatchers } from './types'
import { installVitestRuntime } from './vitest-install'

// A test file that names no agent-verdict matcher and does not import agent-verdict (an ordinary unit test in a
// project using the plugin) pays nothing for them: their code is loaded only for the files that use them.
const testFile = expect.getState().testPath
const used = !testFile || namesMatchers(readTestFile(testFile))
const loading = used ? loadMatcherCode() : undefined
// A failed load surfaces in beforeAll, as the file's error; never as an unhandled rejection here.
loading?.catch(() => {})

expect.extend(lazyMatchers())

installVitestRuntime(
  { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi },
  {
    finishFile: () => loadedMatcherCode()?.finishFile,
    // Side by side with the matchers' code, not after it: the client is what the first request waits for.
    onEvalFile: () => {
      if (loading) void prewarmJudge()
    },
  },
)

// The synchronous matchers (`toCallTool`, `toStayWithinBudget`) need the code loaded before a test calls them.
if (loading)
  beforeAll(async () => {
    await loading
  })

function readTestFile(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    // Unreadable (a virtual module): assume it uses the matchers.
    return 'agent-verdict'
  }
}

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the augmentation must repeat Vitest's own `T = any`
  interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {}
}
