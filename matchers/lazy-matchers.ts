// Stand-ins for every matcher that load the real ones on first use, so a setup entry can register the
// matchers without loading the judges, cassettes and zod schemas behind them (decision 0031).
import { atCallSite } from './call-site'
import type { matchers as MatcherTable } from './index'

type Code = typeof import('./vitest-load')
type Table = typeof MatcherTable

let code: Code | undefined
let loading: Promise<Code> | undefined

/**
 * Starts loading the matchers' code (once per process; later calls share the load).
 *
 * @example
 * beforeAll(() => loadMatcherCode())
 */
export function loadMatcherCode(): Promise<Code> {
  loading ??= import('./vitest-load').then((loaded) => (code = loaded))
  return loading
}

/** The matchers' code when it has loaded, else `undefined`. */
export function loadedMatcherCode(): Code | undefined {
  return code
}

const ASYNC_NAMES = [
  'toFollowInstructions',
  'toBeCorrect',
  'toBeFaithfulTo',
  'toBeFaithfulToImage',
  'toBeCorrectForImage',
  'toHaveQuality',
  'toSatisfyRubric',
  'toHaveNoFailingSpans',
  'toUseToolsEfficiently',
  'toCompleteTask',
  'toFollowPlan',
] as const satisfies ReadonlyArray<keyof Code['asyncMatchers']>
const SYNC_NAMES = ['toCallTool', 'toStayWithinBudget'] as const satisfies ReadonlyArray<keyof Code['syncMatchers']>

// Every matcher of the table has a stand-in: adding one to matchers/index.ts without listing it here fails to compile.
type Listed = (typeof ASYNC_NAMES)[number] | (typeof SYNC_NAMES)[number]
const everyMatcherListed: [Exclude<keyof Table, Listed>] extends [never] ? true : never = true
void everyMatcherListed

type AnyMatcher = (this: unknown, ...args: unknown[]) => unknown

const NAMES_OR_IMPORT = new RegExp(`\\b(${[...ASYNC_NAMES, ...SYNC_NAMES].join('|')})\\b|agent-verdict`)

/**
 * True when a test file's source names one of the matchers or mentions `agent-verdict` (an import of it): only
 * then does the setup load the matchers' code before the file's tests.
 *
 * @example
 * namesMatchers("await expect(answer).toBeCorrect({ reference })") // true
 */
export function namesMatchers(source: string): boolean {
  return NAMES_OR_IMPORT.test(source)
}

function asyncStandIn(name: (typeof ASYNC_NAMES)[number]): AnyMatcher {
  const standIn = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
    const loaded = code ?? (await loadMatcherCode())
    // Awaited here, so the async stack still reaches the test's `expect(…)` line (annotations are placed there).
    return await (loaded.asyncMatchers[name] as unknown as AnyMatcher).apply(this, args)
  }
  Object.defineProperty(standIn, 'name', { value: name })
  // The call site is captured by the stand-in, synchronously, while the test's frame is on the stack.
  return atCallSite(standIn)
}

function syncStandIn(name: (typeof SYNC_NAMES)[number]): AnyMatcher {
  const standIn = function (this: unknown, ...args: unknown[]): unknown {
    if (!code)
      throw new Error(
        `${name} was called before agent-verdict loaded its matchers. The setup loads them before the first test of a file that names a matcher or imports agent-verdict: call it inside a test or hook, and if the call comes from a helper module, add \`import 'agent-verdict/vitest'\` to the test file`,
      )
    return (code.syncMatchers[name] as unknown as AnyMatcher).apply(this, args)
  }
  Object.defineProperty(standIn, 'name', { value: name })
  return standIn
}

/**
 * The matcher table for `expect.extend`, each matcher loading the real one on first use. The async
 * matchers await the load; the two synchronous ones (`toCallTool`, `toStayWithinBudget`) need it done
 * first, which the setup entry ensures with a `beforeAll`.
 *
 * @example
 * expect.extend(lazyMatchers()); beforeAll(() => loadMatcherCode())
 */
export function lazyMatchers(): Table {
  const table: Record<string, AnyMatcher> = {}
  for (const name of ASYNC_NAMES) table[name] = asyncStandIn(name)
  for (const name of SYNC_NAMES) table[name] = syncStandIn(name)
  return table as unknown as Table
}
