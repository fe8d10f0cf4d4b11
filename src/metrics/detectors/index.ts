import * as z from 'zod'
import { TRAIL_CATEGORIES } from '../../taxonomy'
import type { Trace } from '../../trace/trace'
import { runViews } from './agent-run'
import { BudgetSchema, checkBudget } from './budget'
import { ANNOUNCED_CALL_DETECTOR, detectAnnouncedCalls } from './announced-call'
import { ANSWER_TEMPLATE_DETECTOR, detectAnswerTemplate } from './answer-template'
import { ANSWER_WITHOUT_LOOKUP_DETECTOR, detectAnswerWithoutLookup } from './answer-without-lookup'
import { detectErrorSpans, ERROR_STATUS_DETECTOR, UNRECOGNIZED_ERROR_DETECTOR } from './error-status'
import { detectObservedErrors, ERROR_OBSERVED_DETECTOR } from './error-observed'
import { detectInstructionBreaches, INSTRUCTIONS_DETECTOR, runsOf } from './instructions'
import { detectIgnoredErrors, ERROR_IGNORED_DETECTOR } from './error-ignored'
import { DetectorProfileSchema, type Finding } from './finding'
import { activeFrameworks, FrameworkProfileSchema } from './frameworks'
import { detectSelfReportedFailures, SELF_REPORTED_FAILURE_DETECTOR } from './self-reported-failure'
import { detectRepeatedCalls, REPEATED_CALLS_DETECTOR, RepeatedCallsOptionsSchema } from './repeated-calls'
import { detectToolOutputErrors, TOOL_OUTPUT_DETECTOR } from './tool-output'
import { PriceTableSchema } from './usage'
import { pushAll } from './scan'

/**
 * The deterministic detectors, in the order their findings win ties.
 *
 * @example
 * detect(trace, { detectors: DETECTOR_NAMES.filter((d) => d !== 'repeated-calls') })
 */
export const DETECTOR_NAMES = [
  ERROR_STATUS_DETECTOR,
  ERROR_OBSERVED_DETECTOR,
  TOOL_OUTPUT_DETECTOR,
  REPEATED_CALLS_DETECTOR,
  ANSWER_WITHOUT_LOOKUP_DETECTOR,
  ANNOUNCED_CALL_DETECTOR,
  ANSWER_TEMPLATE_DETECTOR,
  INSTRUCTIONS_DETECTOR,
  ERROR_IGNORED_DETECTOR,
  SELF_REPORTED_FAILURE_DETECTOR,
  UNRECOGNIZED_ERROR_DETECTOR,
  'budget',
] as const
/**
 * One detector name.
 *
 * @example
 * DetectorNameSchema.parse('tool-output')
 */
export const DetectorNameSchema = z.enum(DETECTOR_NAMES)
export type DetectorName = z.infer<typeof DetectorNameSchema>

/**
 * Options of {@link detect}.
 * - `detectors`: which to run (default: all; `budget` runs only when `budget` is given).
 * - `repeatedCalls`: see `RepeatedCallsOptionsSchema` (`minRepeats` default 2).
 * - `budget` / `prices`: limits checked by `checkBudget`, and prices for the cost budget.
 * - `profile`: `default` (one category per piece of evidence) or `trail-recall` (see `DetectorProfileSchema`).
 * - `frameworks`: the framework profiles whose rules run (see `FrameworkProfileSchema`). Default: chosen from
 *   the trace's conventions; `[]` runs the general rules only, `['smolagents']` forces smolagents' rules on.
 *
 * @example
 * detect(trace, DetectorOptionsSchema.parse({ repeatedCalls: { minRepeats: 1 }, budget: { tokens: 200_000 } }))
 */
export const DetectorOptionsSchema = z
  .object({
    detectors: z.array(DetectorNameSchema).optional(),
    repeatedCalls: RepeatedCallsOptionsSchema.partial().optional(),
    budget: BudgetSchema.optional(),
    prices: PriceTableSchema.optional(),
    profile: DetectorProfileSchema.optional(),
    frameworks: z.array(FrameworkProfileSchema).optional(),
  })
  .strict()
export type DetectorOptions = z.input<typeof DetectorOptionsSchema>

/**
 * Runs the deterministic detectors over a trace — no judge, no network — and returns their findings in
 * depth-first span order: errors mapped to TRAIL categories (HTTP 401/403, 404, 429, 5xx, timeouts,
 * model-output format errors, environment errors, exhausted resources), named on the call that caused
 * them and again on the next model call whose input shows them; tools that returned an error page;
 * repeated identical tool calls; behaviour the run itself contradicts (a final answer before any of the
 * lookups its facts survey asked for, a call announced in the thought but missing from the code, an
 * answer that breaks the prompt's template — rules of the smolagents and gaia framework profiles, run only when
 * the trace shows those conventions or `frameworks` names them); on any framework, a final answer that breaks the
 * run's own instructions (a required tool never called, a required JSON answer that is not JSON); errors no rule recognizes, under a fallback category, on spans no other
 * detector named (`unrecognized-error`); and exceeded budgets (when `budget` is given).
 *
 * @example
 * const trace = await loadTrace('traces/run.json')
 * for (const f of detect(trace)) console.log(f.spanId, f.category, f.reason)
 */
export function detect(trace: Trace, options: DetectorOptions = {}): Finding[] {
  // Most calls pass no options; skip validation then (detect runs on every trace the CLI loads).
  const opts = Object.keys(options).length === 0 ? {} : DetectorOptionsSchema.parse(options)
  const enabled: ReadonlySet<DetectorName> = opts.detectors ? new Set(opts.detectors) : ALL_DETECTORS
  const found: Finding[] = []
  const frameworks = activeFrameworks(trace, opts.frameworks)
  const errorSpans =
    enabled.has(ERROR_STATUS_DETECTOR) || enabled.has(UNRECOGNIZED_ERROR_DETECTOR)
      ? detectErrorSpans(trace, frameworks.has('smolagents'))
      : undefined
  if (errorSpans && enabled.has(ERROR_STATUS_DETECTOR)) pushAll(found, errorSpans.recognized)
  if (enabled.has(ERROR_OBSERVED_DETECTOR)) pushAll(found, detectObservedErrors(trace))
  if (enabled.has(TOOL_OUTPUT_DETECTOR)) pushAll(found, detectToolOutputErrors(trace))
  if (enabled.has(REPEATED_CALLS_DETECTOR)) pushAll(found, detectRepeatedCalls(trace, opts.repeatedCalls))
  // The two smolagents detectors read agent steps and share one view of them, computed here once.
  if (frameworks.has('smolagents')) {
    const runs =
      enabled.has(ANSWER_WITHOUT_LOOKUP_DETECTOR) || enabled.has(ANNOUNCED_CALL_DETECTOR) ? runViews(trace) : []
    if (enabled.has(ANSWER_WITHOUT_LOOKUP_DETECTOR))
      pushAll(found, detectAnswerWithoutLookup(trace, runs, opts.profile))
    if (enabled.has(ANNOUNCED_CALL_DETECTOR)) pushAll(found, detectAnnouncedCalls(trace, runs))
  }
  if (frameworks.has('gaia') && enabled.has(ANSWER_TEMPLATE_DETECTOR)) pushAll(found, detectAnswerTemplate(trace))
  // The two rules that read a run's final answer share one grouping of its spans.
  const answers = enabled.has(INSTRUCTIONS_DETECTOR) || enabled.has(ERROR_IGNORED_DETECTOR) ? runsOf(trace) : []
  if (enabled.has(INSTRUCTIONS_DETECTOR)) pushAll(found, detectInstructionBreaches(trace, answers))
  if (enabled.has(ERROR_IGNORED_DETECTOR)) pushAll(found, detectIgnoredErrors(trace, answers))
  if (enabled.has(SELF_REPORTED_FAILURE_DETECTOR)) pushAll(found, detectSelfReportedFailures(trace))
  // A fallback: only where no other detector already named a problem on the span the error is blamed on.
  if (errorSpans && enabled.has(UNRECOGNIZED_ERROR_DETECTOR)) {
    const named = new Set(found.map((f) => f.spanId))
    pushAll(
      found,
      errorSpans.unrecognized.filter((f) => !named.has(f.spanId)),
    )
  }
  if (enabled.has('budget') && opts.budget)
    pushAll(found, checkBudget(trace, opts.budget, { prices: opts.prices }).findings)
  return sortFindings(trace, dedupe(found))
}

const ALL_DETECTORS: ReadonlySet<DetectorName> = new Set(DETECTOR_NAMES)

/** One finding per span, category and detector: two tool errors caused by one model call are one problem there. */
function dedupe(findings: Finding[]): Finding[] {
  if (findings.length < 2) return findings
  const seen = new Set<string>()
  return findings.filter((f) => {
    const key = `${f.spanId}\u0000${f.category}\u0000${f.detector}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function sortFindings(trace: Trace, findings: Finding[]): Finding[] {
  if (findings.length < 2) return findings
  const wanted = new Set<string>()
  for (let i = 0; i < findings.length; i++) wanted.add(findings[i].spanId)
  const order = new Map<string, number>()
  for (let i = 0; i < trace.spans.length; i++) {
    const id = trace.spans[i].id
    if (wanted.has(id)) order.set(id, i)
  }
  // Each finding's sort keys computed once, not looked up again in every comparison.
  const keyed = findings.map((f, i) => ({
    f,
    i,
    span: order.get(f.spanId) ?? Infinity,
    detector: DETECTOR_RANK.get(f.detector) ?? DETECTOR_NAMES.length,
    category: CATEGORY_RANK.get(f.category) ?? -1,
  }))
  keyed.sort((a, b) => a.span - b.span || a.detector - b.detector || a.category - b.category || a.i - b.i)
  return keyed.map((k) => k.f)
}

const DETECTOR_RANK = new Map<string, number>(DETECTOR_NAMES.map((d, i) => [d, i]))
const CATEGORY_RANK = new Map<string, number>(TRAIL_CATEGORIES.map((c, i) => [c, i]))

export { checkBudget } from './budget'
export type { Budget, BudgetCheck, BudgetResult, BudgetName, CheckBudgetOptions } from './budget'
export { BudgetSchema, BudgetCheckSchema, BudgetResultSchema } from './budget'
export { FindingSchema, quoteEvidence, MAX_EVIDENCE_CHARS, DetectorProfileSchema } from './finding'
export type { Finding, DetectorProfile } from './finding'
export { FrameworkProfileSchema, FRAMEWORK_PROFILES, isSmolagentsTrace } from './frameworks'
export type { FrameworkProfile } from './frameworks'
export { ERROR_RULES, classifyErrorText, ruleForHttpStatus } from './error-patterns'
export type { ErrorRule, Placement } from './error-patterns'
export { BEHAVIOR_RULES } from './behavior-rules'
export type { BehaviorRule, BehaviorRuleId } from './behavior-rules'
export { RepeatedCallsOptionsSchema } from './repeated-calls'
export type { RepeatedCallsOptions } from './repeated-calls'
export { PriceTableSchema } from './usage'
export type { PriceTable } from './usage'
