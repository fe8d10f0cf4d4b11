// Loads and validates fake-judge rules files, reporting each problem with its JSON path.
import { readFile } from 'node:fs/promises'
import type { z } from 'zod'
import { FakeJudgeRulesFileSchema, type FakeJudgeRulesFile } from './schemas'

/**
 * A rules file or options object that does not validate; `issues` name the offending paths.
 * @example
 * try { await loadFakeJudgeRules('rules.json') } catch (e) { if (e instanceof FakeJudgeConfigError) console.error(e.issues) }
 */
export class FakeJudgeConfigError extends Error {
  override readonly name = 'FakeJudgeConfigError'
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message)
  }
}

/** `['rules', 1, 'when', 'regex']` → `rules[1].when.regex`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`
  return out || '(root)'
}

/** Turns a zod error into a FakeJudgeConfigError whose message lists `path: problem` lines. */
export function toConfigError(error: z.ZodError, source: string): FakeJudgeConfigError {
  const issues = error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }))
  const lines = issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')
  return new FakeJudgeConfigError(
    `${source} is not a valid fake-judge rules file:\n${lines}\nSee examples/fake-judge-rules.json for the format.`,
    issues,
  )
}

/**
 * Validates parsed JSON as a rules file (bare rule array or `{ rules, defaultVerdict, latencyMs, faults, model }`).
 * @example
 * const config = parseFakeJudgeRules([{ when: { contains: 'refund' }, respond: { verdict: 'fail' } }])
 */
export function parseFakeJudgeRules(raw: unknown, source = 'rules'): FakeJudgeRulesFile {
  const parsed = FakeJudgeRulesFileSchema.safeParse(raw)
  if (!parsed.success) throw toConfigError(parsed.error, source)
  return parsed.data
}

/**
 * Reads a JSON rules file; spread the result into `startFakeJudge` options.
 * @example
 * const judge = await startFakeJudge({ ...(await loadFakeJudgeRules('examples/fake-judge-rules.json')) })
 */
export async function loadFakeJudgeRules(path: string): Promise<FakeJudgeRulesFile> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new FakeJudgeConfigError(
      `cannot read rules file ${path}: ${(error as Error).message}. Check the path (relative to ${process.cwd()}).`,
    )
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new FakeJudgeConfigError(
      `${path} is not JSON: ${(error as Error).message}. Fix the syntax (no comments or trailing commas).`,
    )
  }
  const { $schema: _schema, description: _description, ...config } = parseFakeJudgeRules(raw, path)
  return config
}
