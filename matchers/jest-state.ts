import { appendFileSync, mkdirSync } from 'node:fs'
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

interface CircusTest { type: 'test'; mode?: string; errors: unknown[] }
interface CircusBlock { type: 'describeBlock'; mode?: string; children: Array<CircusTest | CircusBlock> }
interface CircusState { hasFocusedTests?: boolean; testNamePattern?: unknown; rootDescribeBlock?: CircusBlock }

/**
 * True when every test of the file ran and passed (no `.only`, `-t`, `.skip`, `.todo` or failure),
 * read from jest-circus's state. Unknown state → false, so cassette pruning is skipped, never wrong.
 *
 * @example
 * afterAll(() => finishFile(testPath, { complete: jestFileRanCompletely() }))
 */
export function jestFileRanCompletely(): boolean {
  // jest-circus keeps its state under an unregistered symbol; find it by description.
  const symbol = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === 'JEST_STATE_SYMBOL')
  const circus = symbol ? ((globalThis as Record<symbol, unknown>)[symbol] as CircusState | undefined) : undefined
  if (!circus?.rootDescribeBlock || circus.hasFocusedTests || circus.testNamePattern) return false
  const complete = (block: CircusBlock): boolean =>
    block.children.every((child) =>
      child.type === 'test' ? child.mode === undefined && child.errors.length === 0 : child.mode === undefined && complete(child),
    )
  return complete(circus.rootDescribeBlock)
}
