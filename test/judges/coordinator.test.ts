import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { callJudge } from '../../src/judges/judge-call'
import { formatCoordinatorStats, startCoordinator, type RunCoordinator } from '../../src/judges/coordinator'
import { AdaptiveLimiter } from '../../src/judges/limiter'
import { openaiJudge } from '../../src/judges/openai'
import { runNoteMarker, runWidePermits, useCoordinator } from '../../src/judges/run-limit'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { likertRequest } from './helpers'

const ADDRESS_KEY = Symbol.for('agent-verdict.coordinator-address')
const NOTED_KEY = Symbol.for('agent-verdict.coordinator-noted')
const IN_TEST_RUN_KEY = Symbol.for('agent-verdict.in-test-run')
const g = globalThis as unknown as Record<symbol, unknown>

/** A "worker" speaking the wire protocol by hand, so one test process can stand for several workers. */
async function rawWorker(address: string) {
  const [host, port] = address.split(':')
  const socket: Socket = connect({ host, port: Number(port) })
  await new Promise((resolve) => socket.once('connect', resolve))
  const granted: number[] = []
  let buffer = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => {
    buffer += chunk
    const lines = buffer.split('\n')
    buffer = lines.pop()!
    for (const line of lines) granted.push(JSON.parse(line).id)
  })
  const send = (msg: object) => socket.write(`${JSON.stringify(msg)}\n`)
  return { socket, granted, send }
}

const settle = (ms = 50) => new Promise((r) => setTimeout(r, ms))

describe('run coordinator (wire level)', () => {
  let coordinator: RunCoordinator
  afterEach(() => coordinator?.close())

  it('hands out at most the run limit across workers, and a worker that dies gives its permits back', async () => {
    coordinator = await startCoordinator({ concurrency: 3, env: {} })
    const a = await rawWorker(coordinator.address)
    const b = await rawWorker(coordinator.address)
    for (let id = 1; id <= 3; id++) a.send({ t: 'acq', id, pool: 'p', limit: 10 })
    await vi.waitFor(() => expect(a.granted).toEqual([1, 2, 3]))
    for (let id = 1; id <= 3; id++) b.send({ t: 'acq', id, pool: 'p', limit: 10 })
    await settle()
    expect(a.granted).toEqual([1, 2, 3])
    expect(b.granted).toEqual([])
    a.socket.destroy() // the worker crashes holding three permits
    await vi.waitFor(() => expect(b.granted.sort()).toEqual([1, 2, 3]))
    const [stats] = coordinator.stats()
    expect(stats).toMatchObject({ pool: 'p', limit: 3, peakInFlight: 3, grants: 6, waits: 3 })
    b.socket.destroy()
  })

  it('releases, cancels and counts 429s; ignores garbage lines without dying', async () => {
    coordinator = await startCoordinator({ env: { AGENT_VERDICT_CONCURRENCY: '1' } })
    const w = await rawWorker(coordinator.address)
    w.socket.write('this is not json\n{"t":"acq"}\n')
    w.send({ t: 'acq', id: 1, pool: 'p' })
    w.send({ t: 'acq', id: 2, pool: 'p' })
    w.send({ t: 'acq', id: 3, pool: 'p' })
    await vi.waitFor(() => expect(w.granted).toEqual([1]))
    await settle()
    expect(w.granted).toEqual([1])
    w.send({ t: 'cancel', id: 2 })
    w.send({ t: 'rel', id: 1, outcome: 'throttled' })
    await vi.waitFor(() => expect(w.granted).toEqual([1, 3]))
    await settle()
    expect(w.granted).toEqual([1, 3])
    expect(coordinator.stats()[0]).toMatchObject({ limit: 1, throttled: 1, grants: 2 })
    expect(formatCoordinatorStats(coordinator.stats())).toMatch(
      /judge limit \(run-wide\): p 1 — peak 1 in flight, 2 calls, 2 waited, 1 × 429/,
    )
    w.socket.destroy()
  })

  it('a requests-per-minute cap holds further grants until the minute has room', async () => {
    coordinator = await startCoordinator({ concurrency: 10, requestsPerMinute: 2, now: () => 1_000, env: {} })
    const w = await rawWorker(coordinator.address)
    for (let id = 1; id <= 3; id++) w.send({ t: 'acq', id, pool: 'p' })
    await vi.waitFor(() => expect(w.granted).toEqual([1, 2]))
    await settle(100)
    expect(w.granted).toEqual([1, 2])
    w.socket.destroy()
  })

  it('says what to set when AGENT_VERDICT_CONCURRENCY is not a positive integer', async () => {
    await expect(startCoordinator({ env: { AGENT_VERDICT_CONCURRENCY: 'eight' } })).rejects.toThrow(
      /AGENT_VERDICT_CONCURRENCY="eight" must be a positive integer \(e\.g\. AGENT_VERDICT_CONCURRENCY=8\)/,
    )
  })
})

describe('judges under the run coordinator', () => {
  let fake: FakeJudge
  const savedEnv = process.env.AGENT_VERDICT_COORDINATOR
  beforeAll(async () => {
    fake = await startFakeJudge({ latencyMs: 40, rules: [{ respond: { score: 4, reason: 'fine' } }] })
  })
  afterAll(() => fake.close())
  afterEach(() => {
    delete g[ADDRESS_KEY]
    delete g[NOTED_KEY]
    delete g[IN_TEST_RUN_KEY]
    if (savedEnv === undefined) delete process.env.AGENT_VERDICT_COORDINATOR
    else process.env.AGENT_VERDICT_COORDINATOR = savedEnv
    fake.reset()
    fake.setFaults([])
    vi.restoreAllMocks()
  })

  it('two judges (as two workers would build) share the run limit, not one each', async () => {
    const coordinator = await startCoordinator({ concurrency: 3, env: {} })
    try {
      useCoordinator(coordinator.address)
      // Two separate judge instances with their own per-process limiters of 8: without the coordinator 16 could be in flight.
      const a = openaiJudge({ model: 'fake-judge', baseURL: fake.baseURL, concurrency: 8 })
      const b = openaiJudge({ model: 'fake-judge', baseURL: fake.baseURL, concurrency: 8 })
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          callJudge(i % 2 ? a : b, likertRequest({ content: [{ type: 'text', text: `answer ${i}` }] })),
        ),
      )
      expect(results.every((r) => r.status === 'ok')).toBe(true)
      expect(fake.stats.maxInFlight).toBe(3)
      expect(coordinator.stats()[0]).toMatchObject({
        pool: 'openai-compatible:fake-judge',
        limit: 3,
        peakInFlight: 3,
        grants: 24,
      })
    } finally {
      await coordinator.close()
    }
  })

  it('the judge concurrency option sets the run limit when AGENT_VERDICT_CONCURRENCY is unset; 429s lose nothing', async () => {
    const coordinator = await startCoordinator({ env: {} })
    try {
      process.env.AGENT_VERDICT_COORDINATOR = coordinator.address // the way Jest workers learn it
      fake.setFaults([{ type: 'rate-limit', rate: 0.1, retryAfter: '0.05' }])
      const judge = openaiJudge({ model: 'fake-judge', baseURL: fake.baseURL, concurrency: 4 })
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          callJudge(judge, likertRequest({ content: [{ type: 'text', text: `answer ${i}` }] })),
        ),
      )
      expect(results.filter((r) => r.status !== 'ok')).toEqual([])
      expect(fake.stats.maxInFlight).toBeLessThanOrEqual(4)
      const [stats] = coordinator.stats()
      expect(stats.limit).toBe(4)
      expect(stats.throttled).toBe(fake.stats.byStatus['429'])
      expect(stats.throttled).toBeGreaterThan(0)
    } finally {
      await coordinator.close()
    }
  })

  it('a coordinator that goes away mid-run: workers fall back to their own limiter with a note, nothing hangs or is lost', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const coordinator = await startCoordinator({ concurrency: 1, env: {} })
    useCoordinator(coordinator.address)
    const judge = openaiJudge({ model: 'fake-judge', baseURL: fake.baseURL, concurrency: 2 })
    const pending = Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        callJudge(judge, likertRequest({ content: [{ type: 'text', text: `answer ${i}` }] })),
      ),
    )
    await settle(20)
    await coordinator.close()
    const results = await pending
    expect(results.every((r) => r.status === 'ok')).toBe(true)
    // The one call already holding the coordinator's permit finishes beside the local limiter's 2.
    expect(fake.stats.maxInFlight).toBeLessThanOrEqual(1 + 2)
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(
      /run coordinator at 127\.0\.0\.1:\d+ is unreachable; judge concurrency 2 now applies per process/,
    )
  })

  it('an address nobody listens on falls back at once instead of hanging', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const closed = await startCoordinator({ env: {} })
    const address = closed.address
    await closed.close()
    useCoordinator(address)
    const permits = runWidePermits('p', new AdaptiveLimiter({ concurrency: 2 }))
    const release = await permits.acquire()
    release('ok')
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(/unreachable/)
  })

  it('a script without a coordinator uses its own limiter silently (one process is the whole run)', async () => {
    delete process.env.AGENT_VERDICT_COORDINATOR
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const permits = runWidePermits('p', new AdaptiveLimiter({ concurrency: 1 }))
    ;(await permits.acquire())('ok')
    expect(stderr).not.toHaveBeenCalled()
  })

  it('a test worker without a coordinator uses the per-process limiter, noted once', async () => {
    delete process.env.AGENT_VERDICT_COORDINATOR
    useCoordinator(undefined) // what the setup file does when no global-setup provided an address
    // A parent pid of its own: the note is once per run (per parent process), and other files of this run may have said it.
    vi.spyOn(process, 'ppid', 'get').mockReturnValue(4_000_000 + (process.pid % 100_000))
    rmSync(runNoteMarker('none'), { force: true })
    // A marker of a run two days ago is swept when this run writes its own; today's are kept.
    const old = runNoteMarker('none', 3_999_999)
    const recent = runNoteMarker('none', 3_999_998)
    writeFileSync(old, '')
    writeFileSync(recent, '')
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000)
    utimesSync(old, twoDaysAgo, twoDaysAgo)
    onTestFinished(() => rmSync(recent, { force: true }))
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const local = new AdaptiveLimiter({ concurrency: 1 })
    const permits = runWidePermits('p', local)
    const first = await permits.acquire()
    expect(local.inFlight).toBe(1)
    const second = permits.acquire()
    await settle(10)
    expect(local.queued).toBe(1)
    first('ok')
    ;(await second)('ok')
    const notes = stderr.mock.calls.map((c) => String(c[0])).filter((s) => s.includes('no run coordinator'))
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatch(
      /judge concurrency 1 applies per worker; add globalSetup: \['agent-verdict\/global-setup'\]/,
    )
    // The next worker of the same run (same parent, fresh process memory) stays quiet.
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('agent-verdict.coordinator-noted')]
    stderr.mockClear()
    ;(await runWidePermits('p', local).acquire())('ok')
    expect(stderr.mock.calls.map((c) => String(c[0])).filter((s) => s.includes('no run coordinator'))).toHaveLength(0)
    expect(existsSync(old)).toBe(false)
    expect(existsSync(recent)).toBe(true)
    rmSync(runNoteMarker('none'), { force: true })
  })

  it('aborting while queued at the coordinator frees the place and rejects with the reason', async () => {
    const coordinator = await startCoordinator({ concurrency: 1, env: {} })
    try {
      useCoordinator(coordinator.address)
      const permits = runWidePermits('p', new AdaptiveLimiter({ concurrency: 5 }))
      const first = await permits.acquire()
      const controller = new AbortController()
      const queued = permits.acquire(controller.signal)
      controller.abort(new Error('test ended'))
      await expect(queued).rejects.toThrow('test ended')
      first('ok')
      const third = await permits.acquire()
      third('ok')
      expect(coordinator.stats()[0]).toMatchObject({ grants: 2, peakInFlight: 1 })
    } finally {
      await coordinator.close()
    }
  })
})
