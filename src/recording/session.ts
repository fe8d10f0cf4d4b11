// One test file's agent recording during a run: which recorded call answers a request (per test and attempt, the
// n-th identical request the n-th recorded one), what a miss is, and how a test's calls are written back (each
// recorded call at once, so a killed run loses nothing). Knows no interceptor: src/recording/intercept.ts feeds it.
import { canonicalJson } from '../cassette/key'
import type { CassetteMode } from '../config/cassette-mode'
import { type RecordedBody, type RecordedCall, type RecordingFile, serializeRecording } from './format'
import { missMessage, RecordingMissError } from './miss'
import { requestKey, type StoredRequest } from './request'
import { readRecording, updateRecording } from './store'

/** How a file's recording behaves: the cassette mode and update flag, plus the matching options. */
export interface SessionOptions {
  mode: Exclude<CassetteMode, 'live'>
  update: boolean
  ignoreBodyFields: readonly string[]
  /** Why replay is in force, for the miss message (`CI is set`, `AGENT_VERDICT_MODE=replay`). */
  because: string
}

/** A test's calls in this attempt, in the order they were made; a slot is empty until its response has been read. */
interface TestState {
  test: string
  calls: Array<RecordedCall | undefined>
  keys: string[]
  occurrences: Map<string, number>
  misses: string[]
  /** The runner has been handed this attempt's misses (at its end); the file's end reports the rest. */
  reported: boolean
  pending: Set<Promise<unknown>>
}

/** What the session says to do with a request. */
export type Decision =
  | { kind: 'replay'; call: RecordedCall }
  | { kind: 'miss'; error: RecordingMissError }
  | {
      kind: 'record'
      save: (call: RecordedCall) => Promise<void>
      forget: () => void
      /** The reading of the response: the test's end waits for it. */
      track: (reading: Promise<unknown>) => void
    }

const sameBody = (a: RecordedBody | undefined, b: RecordedBody | undefined) => canonicalJson(a) === canonicalJson(b)

/**
 * The recording of one test file. `decide` is called for each request a test makes; `finishTest` when a test ends
 * (its misses, if any, fail it); `finishFile` when the file ends (prunes on a complete update run).
 *
 * @example
 * const session = new RecordingSession('evals/__recordings__/a.eval.ts.json', options)
 * const decision = await session.decide({ test: 'a', attempt: '0.0' }, stored)
 */
export class RecordingSession {
  readonly #tests = new Map<string, TestState>()
  readonly #dirty = new Set<TestState>()
  #writing: Promise<void> | undefined
  #loaded: Promise<RecordingFile> | undefined
  /** Recorded calls made and replayed calls served in this run, for reports and the bench. */
  readonly stats = { replayed: 0, recorded: 0, missed: 0 }

  constructor(
    readonly file: string,
    readonly options: SessionOptions,
  ) {}

  #onDisk(): Promise<RecordingFile> {
    this.#loaded ??= readRecording(this.file)
    return this.#loaded
  }

  #state(test: string, attempt: string): TestState {
    const id = `${test}\u0000${attempt}`
    let state = this.#tests.get(id)
    if (!state) {
      state = { test, calls: [], keys: [], occurrences: new Map(), misses: [], reported: false, pending: new Set() }
      this.#tests.set(id, state)
    }
    return state
  }

  /** The recorded calls of `test` with their keys and their number among identical requests. */
  #recorded(file: RecordingFile, test: string): Array<{ call: RecordedCall; key: string; n: number }> {
    const calls = file.tests.find((t) => t.test === test)?.calls ?? []
    const seen = new Map<string, number>()
    return calls.map((call) => {
      const key = requestKey(call.request, this.options.ignoreBodyFields)
      const n = seen.get(key) ?? 0
      seen.set(key, n + 1)
      return { call, key, n }
    })
  }

  /**
   * What to do with a request `test` makes: replay its recorded response, fail it (replay mode, nothing recorded),
   * or let it go out and record what comes back.
   */
  async decide(at: { test: string; attempt: string }, request: StoredRequest): Promise<Decision> {
    const state = this.#state(at.test, at.attempt)
    const key = requestKey(request, this.options.ignoreBodyFields)
    // Numbered and given its slot before any await: the order calls are made in is the order they are kept in.
    const n = state.occurrences.get(key) ?? 0
    state.occurrences.set(key, n + 1)
    const slot = state.calls.length
    state.calls.push(undefined)
    state.keys.push(key)
    const recorded = this.#recorded(await this.#onDisk(), at.test)
    const hit = recorded.find((r) => r.key === key && r.n === n)
    const { mode, update } = this.options
    if (hit && mode !== 'record') {
      state.calls[slot] = hit.call
      this.stats.replayed++
      return { kind: 'replay', call: hit.call }
    }
    if (mode === 'replay' && !update) {
      const repeats = recorded.filter((r) => r.key === key).length
      const message = missMessage({
        test: at.test,
        file: this.file,
        sent: request,
        recorded: recorded.map((r) => r.call.request),
        ...(repeats > 0 ? { repeats } : {}),
        because: this.options.because,
      })
      state.misses.push(message)
      this.stats.missed++
      return { kind: 'miss', error: new RecordingMissError(message) }
    }
    return {
      kind: 'record',
      forget: () => {
        state.keys[slot] = ''
      },
      track: (reading) => {
        state.pending.add(reading)
        void reading.finally(() => state.pending.delete(reading))
      },
      save: async (call) => {
        // A re-recorded call answered as before keeps its old entry (its duration too): the file stays byte for byte.
        const old = recorded.find((r) => r.key === key && r.n === n)?.call
        const same =
          old !== undefined &&
          old.response.status === call.response.status &&
          sameBody(old.response.body, call.response.body)
        state.calls[slot] = same ? old : call
        this.stats.recorded++
        await this.#write(state).catch((err: unknown) => {
          // Never a silent loss: the test fails, saying which file could not be written.
          state.misses.push(
            `agent recording ${this.file} could not be written (${(err as Error).message}) — check that its folder is writable`,
          )
        })
      },
    }
  }

  /**
   * A call of `test` that replay can neither serve nor send (a streamed HTTP/2 body): it fails the test at its end
   * like a miss, even when the agent catches the error.
   */
  refuse(at: { test: string; attempt: string }, message: string): RecordingMissError {
    this.#state(at.test, at.attempt).misses.push(message)
    this.stats.missed++
    return new RecordingMissError(message)
  }

  /**
   * Writes the test's calls: now, or with the write that follows the one in progress. Calls saved while a write runs
   * share the next one (each rewrites the whole file, so one per call would queue up behind a slow disk).
   */
  #write(state: TestState): Promise<void> {
    this.#dirty.add(state)
    this.#writing ??= this.#flush()
    const write = this.#writing
    state.pending.add(write)
    return write.finally(() => state.pending.delete(write))
  }

  async #flush(): Promise<void> {
    try {
      while (this.#dirty.size > 0) {
        const states = [...this.#dirty]
        this.#dirty.clear()
        const file = await updateRecording(this.file, (onDisk) => {
          for (const state of states) this.#apply(onDisk, state)
        })
        this.#loaded = Promise.resolve(file)
      }
    } finally {
      this.#writing = undefined
    }
  }

  /** The test's calls of this attempt, followed by its recorded calls this attempt has not made again. */
  #apply(file: RecordingFile, state: TestState): void {
    const made = new Set<string>()
    const counts = new Map<string, number>()
    state.keys.forEach((key, i) => {
      if (!state.calls[i]) return
      const n = counts.get(key) ?? 0
      counts.set(key, n + 1)
      made.add(`${key}#${n}`)
    })
    const kept = this.#recorded(file, state.test)
      .filter((r) => !made.has(`${r.key}#${r.n}`))
      .map((r) => r.call)
    const calls = [...state.calls.filter((c): c is RecordedCall => c !== undefined), ...kept]
    file.tests = [...file.tests.filter((t) => t.test !== state.test), { test: state.test, calls }]
  }

  /**
   * A test's attempt has ended: waits for its writes and returns the messages of its replay misses (the runner fails
   * the test with them, even when the agent swallowed the error its SDK threw).
   */
  async finishTest(test: string, attempt: string): Promise<string[]> {
    const state = this.#tests.get(`${test}\u0000${attempt}`)
    if (!state) return []
    await Promise.allSettled([...state.pending])
    state.reported = true
    return state.misses
  }

  /** Misses of tests whose end the runner never reported (Jest runs no afterEach for `test.concurrent`). */
  async unreportedMisses(): Promise<string[]> {
    const states = [...this.#tests.values()].filter((s) => !s.reported)
    for (const state of states) await Promise.allSettled([...state.pending])
    return states.flatMap((s) => s.misses)
  }

  /**
   * The file has ended: waits for every write; on an update run where every test ran and passed, keeps of each test
   * exactly the calls its last attempt made, and drops the tests that did not run. Returns how many calls were pruned.
   */
  async finishFile(options: { complete: boolean }): Promise<number> {
    for (const state of this.#tests.values()) await Promise.allSettled([...state.pending])
    if (!options.complete || !this.options.update) return 0
    const onDisk = await readRecording(this.file)
    const before = onDisk.tests.reduce((sum, t) => sum + t.calls.length, 0)
    const kept = new Map<string, RecordedCall[]>()
    for (const state of this.#tests.values())
      kept.set(
        state.test,
        state.calls.filter((c): c is RecordedCall => c !== undefined),
      )
    const after = [...kept.values()].reduce((sum, calls) => sum + calls.length, 0)
    if (serializeRecording(onDisk) === serializeRecording({ ...onDisk, tests: toTests(kept) })) return 0
    await updateRecording(this.file, (file) => {
      file.tests = toTests(kept)
    })
    return Math.max(0, before - after)
  }
}

const toTests = (kept: Map<string, RecordedCall[]>) => [...kept].map(([test, calls]) => ({ test, calls }))
