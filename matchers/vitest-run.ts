// What `agent-verdict/vitest` does for each test file when it runs as a setup file: registers the matchers and
// wires the runtime (cassette per test file, verdicts on task.meta, un-awaited guard). A file of its own so
// that the entry itself has two imports (see matchers/vitest.ts and tsup.config.ts).
import { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi } from 'vitest'
import { prewarmJudge } from '../src/judges/prewarm'
import { matchers } from './index'
import { finishFile } from '../runner/test-judge'
import { installVitestRuntime } from '../runner/vitest-install'

/**
 * Registers the matchers and the runtime's hooks on the test file being loaded.
 *
 * @example
 * setUpVitestFile() // in the entry, which Vitest runs before each test file
 */
export function setUpVitestFile(): void {
  expect.extend(matchers)
  installVitestRuntime(
    { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi },
    {
      finishFile: () => finishFile,
      // This file will call the judge: load its client while Vitest is still loading the file, not in the first test.
      onEvalFile: () => void prewarmJudge(),
    },
  )
}
