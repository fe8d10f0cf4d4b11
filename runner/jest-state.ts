import { appendFileSync, mkdirSync } from 'node:fs'
import type { FileRun } from '../src/cassette/stale'
import type { TestTimeLimit } from '../src/judges/deadline'
import { JEST_LOG_DIR_ENV, jestVerdictLogPath, type JestVerdictLine } from '../src/verdict/jest-log'

/**
 * Appends one test's verdicts to `<AGENT_VERDICT_JEST_LOG_DIR>/<pid>.jsonl` for the Jest reporter;
 * does nothing when the variable is unset (no agent-verdict reporter configured).
 *
 * @example
 * appendVerdictLine({ testPath, fullName: 'chart answers', verdicts })
 */
export function appendVerdictLine(line: JestVerdictLine, env: Record<string, string | undefined> = process.env): void {
  const dir = env[JEST_LOG_DIR_ENV]
  if (!dir) return
  mkdirSync(dir, { recursive: true })
  // One line per write and one file per worker, so lines never interleave.
  appendFileSync(jestVerdictLogPath(dir), `${JSON.stringify(line)}\n`)
}

interface CircusTest {
  type: 'test'
  name?: string
  mode?: string
  status?: string | null
  errors: unknown[]
}
interface CircusBlock {
  type: 'describeBlock'
  name?: string
  mode?: string
  children: Array<CircusTest | CircusBlock>
}
interface CircusState {
  hasFocusedTests?: boolean
  testNamePattern?: unknown
  rootDescribeBlock?: CircusBlock
  testTimeout?: number
  currentlyRunningTest?: { timeout?: number | null; startedAt?: number | null; errors?: unknown[] } | null
}

function circusState(): CircusState | undefined {
  // jest-circus keeps its state under an unregistered symbol; find it by description.
  const symbol = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === 'JEST_STATE_SYMBOL')
  return symbol ? ((globalThis as Record<symbol, unknown>)[symbol] as CircusState | undefined) : undefined
}

/**
 * The running test's start and timeout (its own timeout argument, else `testTimeout`), read from
 * jest-circus's state; `undefined` when there is none.
 *
 * @example
 * jestTimeLimit() // { startedAt, timeoutMs: 5000, setting: 'testTimeout in jest.config…' }
 */
export function jestTimeLimit(now: () => number = Date.now): TestTimeLimit | undefined {
  const circus = circusState()
  const test = circus?.currentlyRunningTest
  if (!circus || !test) return undefined
  const timeoutMs = test.timeout ?? circus.testTimeout
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return undefined
  const startedAt = typeof test.startedAt === 'number' ? test.startedAt : now()
  return {
    startedAt,
    timeoutMs,
    setting: 'testTimeout in jest.config, jest.setTimeout(), or the timeout argument of test()',
  }
}

/**
 * True when every test of the file ran and passed (no `.only`, `-t`, `.skip`, `.todo` or failure),
 * read from jest-circus's state. Unknown state → false, so cassette pruning is skipped, never wrong.
 *
 * @example
 * afterAll(() => finishFile(testPath, { complete: jestFileRanCompletely() }))
 */
export function jestFileRanCompletely(): boolean {
  const circus = circusState()
  if (!circus?.rootDescribeBlock || circus.hasFocusedTests || circus.testNamePattern) return false
  const complete = (block: CircusBlock): boolean =>
    block.children.every((child) =>
      child.type === 'test'
        ? child.mode === undefined && child.errors.length === 0
        : child.mode === undefined && complete(child),
    )
  return complete(circus.rootDescribeBlock)
}

/**
 * What the file's run says about its tests, read from jest-circus's state after they ran: the full names (as
 * `currentTestName` gives them) of those that ran and passed, every declared name, and whether all ran. Unknown
 * state → nothing passed, so no cassette entry is pruned.
 *
 * @example
 * afterAll(() => finishFile(testPath, { complete, run: jestFileRun() }))
 */
export function jestFileRun(): FileRun {
  const circus = circusState()
  const tests: Array<{ name: string; ran: boolean; passed: boolean }> = []
  const walk = (block: CircusBlock, path: string[]) => {
    for (const child of block.children) {
      const name = [...path, child.name ?? ''].filter(Boolean)
      if (child.type === 'test') {
        const ran = child.status === 'done'
        tests.push({ name: name.join(' '), ran, passed: ran && child.errors.length === 0 })
      } else walk(child, name)
    }
  }
  if (circus?.rootDescribeBlock) walk(circus.rootDescribeBlock, [])
  const failing = new Set(tests.filter((t) => !t.passed).map((t) => t.name))
  return {
    passed: new Set(tests.filter((t) => t.passed && !failing.has(t.name)).map((t) => t.name)),
    declared: new Set(tests.map((t) => t.name)),
    allRan: circus?.rootDescribeBlock !== undefined && tests.every((t) => t.ran),
    complete: jestFileRanCompletely(),
  }
}

/**
 * True when jest-circus stopped the running test at its timeout ("Exceeded timeout of 5000 ms").
 *
 * @example
 * if (!jestTimedOut()) throw new Error(notAwaitedMessage(calls))
 */
export function jestTimedOut(): boolean {
  const errors = circusState()?.currentlyRunningTest?.errors ?? []
  // circus keeps [error, asyncError] pairs or plain errors.
  return errors
    .flat()
    .some((e) => /exceeded timeout of \d+ ?ms/i.test(String((e as { message?: unknown })?.message ?? e)))
}
