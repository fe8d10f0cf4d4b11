// Stand-ins for every matcher that load the real ones on first use, so a setup entry can register the
// matchers without loading the judges, cassettes and zod schemas behind them (decision 0031). The code comes
// in two groups, loaded separately: a file that only judges outputs does not load the trace matchers' code.
import { atCallSite } from '../runner/call-site'
import type { matchers as MatcherTable } from './index'

type OutputCode = typeof import('./vitest-load-output')
type TraceCode = typeof import('./vitest-load-trace')
type Table = typeof MatcherTable

/** A group of matchers whose code loads together: `output` (text and image judges) or `trace`. */
export type MatcherGroup = 'output' | 'trace'

const OUTPUT_NAMES = [
  'toFollowInstructions',
  'toBeCorrect',
  'toBeFaithfulTo',
  'toBeFaithfulToImage',
  'toBeCorrectForImage',
  'toHaveQuality',
  'toSatisfyRubric',
] as const satisfies ReadonlyArray<keyof OutputCode['outputMatchers']>
const TRACE_NAMES = [
  'toHaveNoFailingSpans',
  'toUseToolsEfficiently',
  'toCompleteTask',
  'toFollowPlan',
] as const satisfies ReadonlyArray<keyof TraceCode['traceMatchers']>
const SYNC_NAMES = ['toCallTool', 'toStayWithinBudget'] as const satisfies ReadonlyArray<
  keyof TraceCode['syncMatchers']
>

// Every matcher of the table has a stand-in: adding one to matchers/index.ts without listing it here fails to compile.
type Listed = (typeof OUTPUT_NAMES)[number] | (typeof TRACE_NAMES)[number] | (typeof SYNC_NAMES)[number]
const everyMatcherListed: [Exclude<keyof Table, Listed>] extends [never] ? true : never = true
void everyMatcherListed

let output: OutputCode | undefined
let trace: TraceCode | undefined
let loadingOutput: Promise<OutputCode> | undefined
let loadingTrace: Promise<TraceCode> | undefined

function loadOutput(): Promise<OutputCode> {
  loadingOutput ??= import('./vitest-load-output').then((loaded) => (output = loaded))
  return loadingOutput
}

function loadTrace(): Promise<TraceCode> {
  loadingTrace ??= import('./vitest-load-trace').then((loaded) => (trace = loaded))
  return loadingTrace
}

/**
 * Starts loading the code of the given matcher groups (each once per process; later calls share the load) and
 * resolves when all of them have loaded.
 *
 * @example
 * beforeAll(() => loadMatcherCode(['output', 'trace']))
 */
export async function loadMatcherCode(groups: readonly MatcherGroup[] = ['output', 'trace']): Promise<void> {
  await Promise.all(groups.map((g) => (g === 'output' ? loadOutput() : loadTrace())))
}

/** `finishFile` (the end-of-file cassette flush) once any group has loaded, else `undefined`: nothing to flush. */
export function loadedFinishFile(): OutputCode['finishFile'] | undefined {
  return (output ?? trace)?.finishFile
}

const NAME = (names: readonly string[]) => new RegExp(`\\b(${names.join('|')})\\b`)
const NAMES_OUTPUT = NAME(OUTPUT_NAMES)
const NAMES_TRACE = NAME([...TRACE_NAMES, ...SYNC_NAMES])

/**
 * The matcher groups a test file's source calls for: a group when the source names one of its matchers, and
 * both when it mentions `agent-verdict` (an import of it, through which helpers may reach any matcher). Empty
 * for an ordinary unit test file, which then loads none of the matchers' code.
 *
 * @example
 * groupsNamedIn("await expect(answer).toBeCorrect({ reference })") // ['output']
 */
export function groupsNamedIn(source: string): MatcherGroup[] {
  if (source.includes('agent-verdict')) return ['output', 'trace']
  const groups: MatcherGroup[] = []
  if (NAMES_OUTPUT.test(source)) groups.push('output')
  if (NAMES_TRACE.test(source)) groups.push('trace')
  return groups
}

type AnyMatcher = (this: unknown, ...args: unknown[]) => unknown

function asyncStandIn(name: (typeof OUTPUT_NAMES)[number] | (typeof TRACE_NAMES)[number]): AnyMatcher {
  const isOutput = (OUTPUT_NAMES as readonly string[]).includes(name)
  const real = async (): Promise<AnyMatcher> => {
    const table = isOutput
      ? (output ?? (await loadOutput())).outputMatchers
      : (trace ?? (await loadTrace())).traceMatchers
    return (table as unknown as Record<string, AnyMatcher>)[name]
  }
  const standIn = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
    // Awaited here, so the async stack still reaches the test's `expect(…)` line (annotations are placed there).
    return await (await real()).apply(this, args)
  }
  Object.defineProperty(standIn, 'name', { value: name })
  // The call site is captured by the stand-in, synchronously, while the test's frame is on the stack.
  return atCallSite(standIn)
}

function syncStandIn(name: (typeof SYNC_NAMES)[number]): AnyMatcher {
  const standIn = function (this: unknown, ...args: unknown[]): unknown {
    if (!trace)
      throw new Error(
        `${name} was called before agent-verdict loaded its code. The setup loads it before the first test of a file that names ${name} or imports agent-verdict: call it inside a test or hook, and if the call comes from a helper module, add \`import 'agent-verdict/vitest'\` to the test file`,
      )
    return (trace.syncMatchers[name] as unknown as AnyMatcher).apply(this, args)
  }
  Object.defineProperty(standIn, 'name', { value: name })
  return atCallSite(standIn)
}

/**
 * The matcher table for `expect.extend`, each matcher loading the real one on first use. The async
 * matchers await the load; the two synchronous ones (`toCallTool`, `toStayWithinBudget`) need it done
 * first, which the setup entry ensures with a `beforeAll`.
 *
 * @example
 * expect.extend(lazyMatchers()); beforeAll(() => loadMatcherCode(['trace']))
 */
export function lazyMatchers(): Table {
  const table: Record<string, AnyMatcher> = {}
  for (const name of [...OUTPUT_NAMES, ...TRACE_NAMES]) table[name] = asyncStandIn(name)
  for (const name of SYNC_NAMES) table[name] = syncStandIn(name)
  return table as unknown as Table
}
