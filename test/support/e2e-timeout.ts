// Every test under test/e2e/ drives child runners (Vitest, Jest, npm pack): on a loaded 2-core CI machine one of
// them took 23 s of the default 30 s limit, so those files get 120 s per test (a hang still fails, later). Unit
// tests keep failing fast; a test that passes its own timeout keeps it.
import { expect, vi } from 'vitest'

if (/[\\/]test[\\/]e2e[\\/]/.test(expect.getState().testPath ?? '')) vi.setConfig({ testTimeout: 120_000 })
