import { expandTracePattern } from '../trace/load'

/** One command-line argument and the trace files it stands for (empty when it matched nothing). */
export interface ExpandedArg {
  arg: string
  files: string[]
}

/**
 * Expands file / directory / glob arguments the way `loadTraces` does (directories are searched for
 * `**\/*.{json,jsonl}`), keeping per-argument results so the CLI can name an argument that matched
 * nothing and load files one by one (progress, one bad file does not hide the others).
 *
 * @example
 * const args = await expandTraceArgs(['examples/traces', 'runs/*.jsonl'])
 */
export async function expandTraceArgs(args: readonly string[]): Promise<ExpandedArg[]> {
  const out: ExpandedArg[] = []
  for (const arg of args) out.push({ arg, files: (await expandTracePattern(arg)).sort() })
  return out
}
