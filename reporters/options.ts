// Options shared by the Vitest and Jest reporters, and what the run records from the environment.
import * as z from 'zod'
import { cassetteModeForReport } from '../src/config/cassette-mode'
import { judgeIdForReport } from '../src/config/judge-spec'
import { GatesSchema } from '../src/report/gates'

/**
 * Options of `agent-verdict/reporter` (Vitest) and `agent-verdict/jest-reporter` (Jest).
 *
 * - `outputFile`: the JSON artifact, relative to the Vitest root / Jest `rootDir`. Default `agent-verdict-report.json`.
 * - `html`: a path writes the self-contained HTML report there (same base); `false` (default) writes none.
 * - `junit`: a path writes the verdicts as JUnit XML there (same base), for CI test-result views; `false` (default) writes none.
 * - `githubSummary`: append a Markdown summary to `$GITHUB_STEP_SUMMARY`. Default: when that variable is set.
 * - `silent`: print nothing (the files are still written); a broken gate is still printed.
 * - `otlp`: also send every verdict as an OpenTelemetry `gen_ai.evaluation.result` event — `{ endpoint }` (OTLP/HTTP
 *   base URL, e.g. `http://localhost:4318`) or `{ file }` (OTLP JSON lines, same base); `as: 'span-events'` for
 *   backends that only read traces; `headers` for a hosted backend's key (decision 0026).
 * - `gates`: suite limits (`minPassRate`, `maxUnjudgeable`, `maxCostUsd`, `metrics`, see `GatesSchema`);
 *   a broken gate fails the run even when every test passed.
 * - `gatesOnPartialRun`: `'skip'` (default) reports the gates as skipped, with a note, when the run is filtered
 *   (a test name pattern, file filters, `--changed`, a shard): its verdicts are not the suite's, and filtering must
 *   never fail a run (decision 0041). `'apply'` checks them against the verdicts that ran.
 */
export const ReporterOptionsSchema = z
  .object({
    outputFile: z.string().min(1).optional(),
    html: z.union([z.string().min(1), z.literal(false)]).optional(),
    junit: z.union([z.string().min(1), z.literal(false)]).optional(),
    githubSummary: z.boolean().optional(),
    silent: z.boolean().optional(),
    gates: GatesSchema.optional(),
    gatesOnPartialRun: z.enum(['skip', 'apply']).optional(),
    otlp: z
      .object({
        endpoint: z.string().url().optional(),
        file: z.string().min(1).optional(),
        as: z.enum(['logs', 'span-events']).optional(),
        headers: z.record(z.string(), z.string()).optional(),
      })
      .strict()
      .refine((o) => (o.endpoint === undefined) !== (o.file === undefined), {
        message: 'give exactly one of endpoint (OTLP/HTTP base URL) or file (OTLP JSON lines path)',
      })
      .optional(),
  })
  .strict()
export type ReporterOptions = z.infer<typeof ReporterOptionsSchema>

export const DEFAULT_OUTPUT_FILE = 'agent-verdict-report.json'

/**
 * Validates reporter options; an unknown key or a wrong type throws, naming the option.
 *
 * @example
 * parseReporterOptions({ outputFile: 'reports/verdicts.json', html: 'reports/verdicts.html' })
 */
export function parseReporterOptions(options: unknown): ReporterOptions {
  const parsed = ReporterOptionsSchema.safeParse(options ?? {})
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new Error(
    `agent-verdict reporter: invalid option ${issue.path.join('.') || '(options)'}: ${issue.message}. ` +
      `Valid options: outputFile (string), html (string | false), junit (string | false), githubSummary (boolean), silent (boolean), gates ({ minPassRate, maxUnjudgeable, maxCostUsd, metrics }), gatesOnPartialRun ('skip' | 'apply'), otlp ({ endpoint | file, as?: 'logs' | 'span-events', headers? }).`,
  )
}

/**
 * The run's judge and cassette mode as recorded in the artifact, resolved by the same parsers the
 * judges and cassettes use (src/config): the judge as `provider:model` (`AGENT_VERDICT_JUDGE=bedrock`
 * is `bedrock:<default model>`; base URLs, which may carry credentials, are dropped; `null` when
 * unset or invalid), the mode from `AGENT_VERDICT_MODE` and `CI` (`'invalid'` for a value that is no mode).
 *
 * @example
 * runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'openai-compatible:http://127.0.0.1:4010/v1#fake' }) // { judge: 'openai-compatible:fake', mode: 'auto' }
 */
export function runInfoFromEnv(env: NodeJS.ProcessEnv = process.env): { judge: string | null; mode: string } {
  return { judge: judgeIdForReport(env), mode: cassetteModeForReport(env) }
}
