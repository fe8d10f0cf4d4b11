// Progress lines and the poll-retry rule of batch waits.
import { describe, expect, it } from 'vitest'
import { etaOf, formatBatchProgress, isTransientPollError } from '../../../src/judges/batch/progress'

describe('batch progress', () => {
  it('estimates the time left at the rate so far, and only once there is a rate', () => {
    expect(etaOf(50, 200, 60_000)).toBe(180_000)
    expect(etaOf(0, 200, 60_000)).toBeNull()
    expect(etaOf(10, null, 60_000)).toBeNull()
    expect(etaOf(200, 200, 60_000)).toBe(0)
    expect(etaOf(250, 200, 60_000)).toBe(0) // a provider over-counting never gives a negative ETA
  })

  it('prints done / total, failures and the ETA in one line', () => {
    expect(
      formatBatchProgress({
        id: 'batch_1',
        status: 'in_progress',
        done: 50,
        failed: 2,
        total: 200,
        elapsedMs: 60_000,
        etaMs: 180_000,
      }),
    ).toBe('batch batch_1 in_progress: 50/200 done (2 failed), ETA 3m 0s (1m 0s elapsed)')
    expect(
      formatBatchProgress({
        id: 'job1',
        status: 'InProgress',
        done: 0,
        failed: 0,
        total: null,
        elapsedMs: 2 * 3600_000 + 5 * 60_000,
        etaMs: null,
      }),
    ).toBe('batch job1 InProgress: 0 done (2h 5m elapsed)')
  })

  it('retries polls that can heal (throttling, server errors, dropped connections), not the others', () => {
    for (const e of [
      { status: 429 },
      { status: 503 },
      { status: 408 },
      { $metadata: { httpStatusCode: 500 } },
      { name: 'ThrottlingException', $metadata: {} },
      new Error('socket hang up'),
    ]) {
      expect(isTransientPollError(e)).toBe(true)
    }
    for (const e of [
      { status: 401 },
      { status: 404 },
      { $metadata: { httpStatusCode: 403 } },
      Object.assign(new Error('aborted'), { name: 'AbortError' }),
    ]) {
      expect(isTransientPollError(e)).toBe(false)
    }
  })
})
