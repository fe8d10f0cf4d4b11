// Repeated agent trials: run the user's agent k times with bounded concurrency and hand the results to a matcher.

// Symbol.for, not Symbol(): the package's entries are bundled separately (agent-verdict, /vitest, /jest),
// and a trials value made by one must be recognised by the matchers of another.
const TRIALS = Symbol.for('agent-verdict.trials')

/** The results of k runs of an agent, in trial order; pass it to a judge matcher with a `trials` rule. */
export interface Trials<T> {
  readonly [TRIALS]: true
  readonly k: number
  readonly results: readonly T[]
}

/** Options of {@link runTrials}. */
export interface RunTrialsOptions {
  /** How many trials run at once (default 1: one after another, as an agent with shared state expects). */
  concurrency?: number
}

/**
 * Runs `fn(trialIndex)` k times (index 0..k−1, at most `concurrency` at once) and returns the results
 * for a matcher that judges each one and decides on a declared rule. A trial that throws rejects the
 * whole call with the trial named: an agent crash is an error of the test, not a silently failed trial.
 *
 * @example
 * const answers = await runTrials(5, () => myAgent('Which region leads?'), { concurrency: 2 })
 * await expect(answers).toBeCorrect({ reference: 'North America', trials: 'pass^k' })
 */
export async function runTrials<T>(
  k: number,
  fn: (trial: number) => T | Promise<T>,
  options: RunTrialsOptions = {},
): Promise<Trials<T>> {
  if (!Number.isInteger(k) || k < 1)
    throw new RangeError(`runTrials: k must be a positive integer (how many times to run the agent), got ${k}`)
  const concurrency = options.concurrency ?? 1
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`runTrials: concurrency must be a positive integer, got ${concurrency}`)
  const results = new Array<T>(k)
  let next = 0
  const worker = async () => {
    while (next < k) {
      const i = next++
      try {
        results[i] = await fn(i)
      } catch (error) {
        throw new Error(`runTrials: trial ${i + 1} of ${k} threw: ${(error as Error)?.message ?? String(error)}`, {
          cause: error,
        })
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, k) }, worker))
  return Object.freeze({ [TRIALS]: true as const, k, results: Object.freeze(results) })
}

/**
 * True for a value made by {@link runTrials} (in any bundle of agent-verdict).
 *
 * @example
 * isTrials(await runTrials(3, () => 'x')) // true
 */
export function isTrials(value: unknown): value is Trials<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TRIALS] === true
}
