import { join } from 'node:path'
import * as z from 'zod'
import { VerdictAssertionSchema, VerdictSchema } from './verdict'
import { ReportTraceSchema } from './report'

/**
 * Env var naming the directory where Jest workers log verdicts. The `agent-verdict/jest-reporter`
 * sets it in its constructor (workers inherit it when spawned); the `agent-verdict/jest` setup file
 * appends to it. Jest has no `task.meta`, so this file channel replaces it.
 */
export const JEST_LOG_DIR_ENV = 'AGENT_VERDICT_JEST_LOG_DIR'

/** One line of a worker's verdict log: the verdicts of one test. */
export const JestVerdictLineSchema = z.object({
  /** Absolute test file path, as `expect.getState().testPath`. */
  testPath: z.string(),
  /** Describe titles and test title joined by spaces, as `expect.getState().currentTestName`. */
  fullName: z.string(),
  verdicts: z.array(VerdictSchema),
  traces: z.array(ReportTraceSchema).optional(),
  assertions: z.array(VerdictAssertionSchema).optional(),
})
export type JestVerdictLine = z.infer<typeof JestVerdictLineSchema>

/**
 * The log file of one worker process: `<dir>/<pid>.jsonl` (one writer per file, so appends never interleave).
 *
 * @example
 * appendFileSync(jestVerdictLogPath(process.env[JEST_LOG_DIR_ENV]!), JSON.stringify(line) + '\n')
 */
export function jestVerdictLogPath(dir: string, pid: number = process.pid): string {
  return join(dir, `${pid}.jsonl`)
}
