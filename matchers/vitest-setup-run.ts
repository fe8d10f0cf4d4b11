// What `agent-verdict/vitest-setup` runs for each test file (that entry only calls setUpTestFile, see there): the same matchers and
// runtime as `agent-verdict/vitest`, but the code behind the matchers (judges, cassettes, zod schemas)
// loads in the background while Vitest loads the test file, and is awaited before the file's first test;
// a test file that names no matcher and does not import agent-verdict does not load it at all.
// No provider SDK is loaded here; an eval file warms its judge's client the same way (decision 0031).
import { readFileSync } from 'node:fs'
import { afterAll, afterEach, aroundEach, beforeAll, expect, inject, TestRunner, vi } from 'vitest'
import { prewarmJudge } from '../src/judges/prewarm'
import { groupsNamedIn, lazyMatchers, loadedFinishFile, loadMatcherCode } from './lazy-matchers'
import { installVitestRuntime } from '../runner/vitest-install'

/**
 * Sets up one test file (Vitest runs `agent-verdict/vitest-setup` before each): registers the matchers'
 * stand-ins and the runtime's hooks, and starts loading the code of the matchers the file names.
 *
 * @example
 * setUpTestFile() // in the setup entry, once per test file
 */
export function setUpTestFile(): void {
  // A test file that names no agent-verdict matcher and does not import agent-verdict (an ordinary unit test in a
  // project using the plugin) pays nothing for them: their code is loaded only for the files that use them.
  const testFile = expect.getState().testPath
  const groups = testFile ? groupsNamedIn(readTestFile(testFile)) : (['output', 'trace'] as const)
  const loading = groups.length > 0 ? loadMatcherCode(groups) : undefined
  // A failed load surfaces in beforeAll, as the file's error; never as an unhandled rejection here.
  loading?.catch(() => {})

  expect.extend(lazyMatchers())

  installVitestRuntime(
    { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi },
    {
      finishFile: loadedFinishFile,
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
}

function readTestFile(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    // Unreadable (a virtual module): assume it uses the matchers.
    return 'agent-verdict'
  }
}
