// What a reporter does with verdicts that reach it invalid (task.meta, a Jest log line): each becomes an
// unjudgeable verdict, never nothing. A dropped verdict read as absent, so a cost gate summed 0 and passed.
import {
  JudgeInfoSchema,
  VerdictAssertionSchema,
  type Verdict,
  VerdictLevelSchema,
  VerdictScaleSchema,
  VerdictSchema,
} from './verdict'
import { ReportTraceSchema } from './report'
import type { TestVerdictMeta } from './meta'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** A test's verdicts as the report can hold them, and what was invalid in them (empty when nothing was). */
export interface SalvagedMeta {
  meta: TestVerdictMeta
  issues: string[]
}

/**
 * Reads a test's verdict metadata (`{ verdicts, traces?, assertions? }`) keeping every verdict: a valid one
 * as is, an invalid one (or a metadata value that is not that shape at all) as an `unjudgeable` verdict whose
 * reason names the first invalid field. Its judge info is kept when valid; when not, its token counts are
 * marked unknown, so the run's cost reads unknown and a cost gate cannot pass on it. Its assertion, if any,
 * counts as not passed. Invalid traces and assertions are left out (they carry no verdict).
 *
 * @example
 * const { meta, issues } = salvageVerdictMeta(testCase.meta().agentVerdict)
 * if (issues.length) warn(issues[0])
 */
export function salvageVerdictMeta(raw: unknown): SalvagedMeta {
  const issues: string[] = []
  if (!isObject(raw) || !Array.isArray(raw.verdicts)) {
    const why = `verdicts: expected { verdicts: [...] }, got ${describe(isObject(raw) ? raw.verdicts : raw)}`
    issues.push(why)
    return { meta: { verdicts: [unjudgeable(undefined, why)] }, issues }
  }
  const verdicts = raw.verdicts.map((item, i) => {
    const parsed = VerdictSchema.safeParse(item)
    if (parsed.success) return parsed.data
    const issue = parsed.error.issues[0]
    const why = `verdicts.${i}.${issue.path.join('.')}: ${issue.message}`
    issues.push(why)
    return unjudgeable(item, why)
  })
  const meta: TestVerdictMeta = { verdicts }
  if (raw.traces !== undefined) {
    const traces = ReportTraceSchema.array().safeParse(raw.traces)
    if (traces.success) meta.traces = traces.data
    else issues.push(`traces: ${traces.error.issues[0].message} (left out)`)
  }
  if (raw.assertions !== undefined) {
    const assertions = VerdictAssertionSchema.array().safeParse(raw.assertions)
    if (assertions.success) meta.assertions = assertions.data
    else issues.push(`assertions: ${assertions.error.issues[0].message} (left out)`)
  }
  return { meta, issues }
}

/** The unjudgeable verdict that stands for an invalid one, keeping what of it is readable. */
function unjudgeable(item: unknown, why: string): Verdict {
  const v = isObject(item) ? item : {}
  const level = VerdictLevelSchema.safeParse(v.level)
  const scale = VerdictScaleSchema.safeParse(v.scale)
  const threshold = typeof v.threshold === 'number' && v.threshold >= 0 && v.threshold <= 1 ? v.threshold : 1
  const assertion = VerdictAssertionSchema.safeParse(v.assertion)
  const reason = text(v.reason)
  const verdict: Verdict = {
    ...(text(v.id) !== undefined ? { id: text(v.id) } : {}),
    metric: text(v.metric) ?? '(invalid verdict)',
    level: level.success ? level.data : 'output',
    ...(text(v.spanId) !== undefined ? { spanId: text(v.spanId) } : {}),
    scale: scale.success ? scale.data : 'binary',
    raw: null,
    score: null,
    threshold,
    pass: false,
    outcome: 'unjudgeable',
    reason: `the verdict reached the reporter invalid (${why}), so it counts as unjudgeable${reason ? `; it said: ${reason.slice(0, 500)}` : ''}`,
    ...(assertion.success ? { assertion: { ...assertion.data, passed: false } } : {}),
  }
  if (v.judge !== undefined) {
    const judge = JudgeInfoSchema.safeParse(v.judge)
    verdict.judge = judge.success ? judge.data : unknownJudge(v.judge, why)
  }
  return verdict
}

/** Judge info that was invalid: who judged when readable, one call made unless it says replayed, counts unknown. */
function unknownJudge(raw: unknown, why: string): NonNullable<Verdict['judge']> {
  const j = isObject(raw) ? raw : {}
  const cached = j.cached === true
  const calls = JudgeInfoSchema.shape.calls.safeParse(j.calls)
  return {
    provider: text(j.provider) ?? 'unknown',
    model: text(j.model) ?? 'unknown',
    promptVersion: text(j.promptVersion) ?? 'unknown',
    tokens: { input: 0, output: 0, invalid: `the verdict reached the reporter invalid (${why})` },
    costUsd: null,
    latencyMs: 0,
    cached,
    calls: (calls.success && calls.data) || { made: cached ? 0 : 1, replayed: cached ? 1 : 0, retries: 0, reasks: 0 },
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : typeof value
}
