// Merges the per-worker verdict logs Jest workers append to (`<dir>/<pid>.jsonl`).
import { readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { JestVerdictLineSchema, type JestVerdictLine } from '../src/verdict/jest-log'
import { salvageVerdictMeta } from '../src/verdict/salvage'

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
 * Reads every `*.jsonl` in `dir`. An invalid verdict in a line becomes an unjudgeable verdict of its test; a
 * line that cannot be read at all (not JSON, a partial last line of a worker killed mid-write, no test
 * named) becomes one unjudgeable verdict of a test named after the line. Each comes with a warning; none is
 * dropped, since a dropped verdict reads as absent to every gate.
 *
 * @example
 * const { entries } = await readJestVerdictLog(process.env.AGENT_VERDICT_JEST_LOG_DIR!)
 */
export async function readJestVerdictLog(dir: string): Promise<JestVerdictLog> {
  const entries = new Map<string, JestVerdictLine[]>()
  const warnings: string[] = []
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl')).sort()
  const add = (line: JestVerdictLine) => {
    const key = jestTestKey(line.testPath, line.fullName)
    const list = entries.get(key)
    if (list) list.push(line)
    else entries.set(key, [line])
  }
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
        const why = last ? 'a partial last line (a worker stopped mid-write)' : 'a line that is not JSON'
        warnings.push(`${file}:${i + 1}: ${why}: counted as one unjudgeable verdict`)
        add(unreadableLine(dir, file, i, why))
        return
      }
      const parsed = JestVerdictLineSchema.safeParse(json)
      if (parsed.success) {
        add(parsed.data)
        return
      }
      const obj = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>
      if (typeof obj.testPath !== 'string' || typeof obj.fullName !== 'string') {
        warnings.push(`${file}:${i + 1}: a verdict line that names no test: counted as one unjudgeable verdict`)
        add(unreadableLine(dir, file, i, 'a verdict line that names no test'))
        return
      }
      const { meta, issues } = salvageVerdictMeta(obj)
      warnings.push(
        `${file}:${i + 1}: invalid verdict line of "${obj.fullName}" at ${issues[0]}: its invalid verdicts count as unjudgeable`,
      )
      add({ testPath: obj.testPath, fullName: obj.fullName, ...meta })
    })
  }
  return { entries, warnings }
}

/** The stand-in for a log line that names no readable test: one unjudgeable verdict, reported as a pending test. */
function unreadableLine(dir: string, file: string, index: number, why: string): JestVerdictLine {
  const { meta } = salvageVerdictMeta({ verdicts: [{ reason: why }] })
  return { testPath: join(dir, file), fullName: `(unreadable verdict log line ${file}:${index + 1})`, ...meta }
}
