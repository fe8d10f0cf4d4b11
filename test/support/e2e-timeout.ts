// Every test under test/e2e/ drives child runners (Vitest, Jest, npm pack): on a loaded 2-core CI machine one of
// them took 23 s of the default 30 s limit, so those files get 120 s per test (a hang still fails, later). So do
// files elsewhere that drive a child runner through the shared helpers (test/support/run-vitest.ts, run-jest.ts,
// test/e2e/user-project.ts): two child runs in one test took 29 s of 30 on a loaded machine. Unit tests keep
// failing fast; a test that passes its own timeout keeps it.
import { readFileSync } from 'node:fs'
import { expect, vi } from 'vitest'

const CHILD_RUNNER_HELPERS = /from '(\.\.?\/)+(support\/run-(vitest|jest)|e2e\/user-project)'/
const path = expect.getState().testPath ?? ''
if (/[\\/]test[\\/]e2e[\\/]/.test(path) || (path && CHILD_RUNNER_HELPERS.test(readFileSync(path, 'utf8'))))
  vi.setConfig({ testTimeout: 120_000 })
