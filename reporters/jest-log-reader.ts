// Merges the per-worker verdict logs Jest workers append to (`<dir>/<pid>.jsonl`).
import { readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { JestVerdictLineSchema, type JestVerdictLine } from '../src/verdict/jest-log'

export interface JestVerdictLog {
  /**
   * By {@link jestTestKey}, every line in the order it was logged: a test logs one per attempt (retries), and two
   * tests of one file can share a full name (`describe('a') > test('b')` and `test('a b')`).
   */
  entries: Map<string, JestVerdictLine[]>
  warnings: string[]
}

/** Identity of a test across the worker log and Jest's aggregated results. */
export function jestTestKey(testPath: string, fullName: string): string {
  return `${resolve(testPath)}\u0000${fullName}`
}

/**
 * Reads every `*.jsonl` in `dir`. A partial last line (a worker killed mid-write) and invalid lines
 * are skipped with a warning rather than failing the whole report.
 *
 * @example
 * const { entries } = await readJestVerdictLog(process.env.AGENT_VERDICT_JEST_LOG_DIR!)
 */
export async function readJestVerdictLog(dir: string): Promise<JestVerdictLog> {
  const entries = new Map<string, JestVerdictLine[]>()
  const warnings: string[] = []
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl')).sort()
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8')
    const lines = text.split('\n')
    lines.forEach((line, i) => {
      if (line.trim() === '') return
      const last = i === lines.length - 1
      let json: unknown
      try {
        json = JSON.parse(line)
      } catch {
        warnings.push(
          last
            ? `${file}: skipped a partial last line (a worker stopped mid-write)`
            : `${file}:${i + 1}: skipped a line that is not JSON`,
        )
        return
      }
      const parsed = JestVerdictLineSchema.safeParse(json)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        warnings.push(`${file}:${i + 1}: skipped an invalid verdict line at ${issue.path.join('.')}: ${issue.message}`)
        return
      }
      const key = jestTestKey(parsed.data.testPath, parsed.data.fullName)
      const list = entries.get(key)
      if (list) list.push(parsed.data)
      else entries.set(key, [parsed.data])
    })
  }
  return { entries, warnings }
}
