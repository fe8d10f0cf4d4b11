import { stat } from 'node:fs/promises'
import fg from 'fast-glob'

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
  for (const arg of args) out.push({ arg, files: (await expand(arg)).sort() })
  return out
}

async function expand(pattern: string): Promise<string[]> {
  if (fg.isDynamicPattern(pattern)) return fg(pattern, { onlyFiles: true, ignore: ['**/node_modules/**'] })
  const info = await stat(pattern).catch(() => undefined)
  if (info?.isFile()) return [pattern]
  if (!info?.isDirectory()) return []
  const base = fg.convertPathToPattern(pattern.replace(/[\\/]+$/, '') || '/')
  return fg(`${base}/**/*.{json,jsonl}`, { onlyFiles: true, ignore: ['**/node_modules/**'] })
}
