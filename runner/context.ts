/**
 * What a matcher needs from `this`, written structurally so Vitest's `MatcherState` and Jest's
 * `MatcherContext` both satisfy it without casts.
 */
export interface MatcherContext {
  /** True under `.not`. Only the wording depends on it, never `pass` (except for the cases that fail both ways). */
  readonly isNot?: boolean
  /** Absolute path of the running test file (both runners set it). */
  readonly testPath?: string
  /** Full name of the running test (describe titles + test title). */
  readonly currentTestName?: string
  /** Jest 30: the name of the running `test.concurrent` (currentTestName is wrong there). */
  readonly currentConcurrentTestName?: () => string | undefined
  /** Jest 30: a stable object per running test. */
  readonly currentTestIdentity?: () => object | undefined
  /** The runner's printing helpers; absent when a matcher is called as a plain function. */
  readonly utils?: MatcherUtils
  /** Vitest 4: the running test, whose JSON-safe `meta` carries verdicts to reporters. */
  readonly task?: { readonly meta: object; readonly name: string }
}

/**
 * The runner's printing helpers (`this.utils` in Vitest and Jest): its own hint line and value printing, so
 * our messages look like the built-in matchers' (colours included when the runner uses them).
 */
export interface MatcherUtils {
  matcherHint(matcherName: string, received?: string, expected?: string, options?: { isNot?: boolean }): string
  printReceived(value: unknown): string
  printExpected(value: unknown): string
}

/** What every matcher returns (Vitest's and Jest's shape). */
export interface MatcherResult {
  pass: boolean
  message: () => string
  actual?: unknown
  expected?: unknown
  meta?: object
}
