// Zod schemas for the fake judge's rules, faults and options: validated in code and when loaded from JSON.
import * as z from 'zod'

const isRegExp = (source: string): boolean => {
  try {
    new RegExp(source)
    return true
  } catch {
    return false
  }
}

/**
 * Which requests a rule or fault applies to. Every condition given must hold; `{}` matches everything.
 * The prompt text is the system (and developer) text plus the user text parts, joined by newlines.
 * @example
 * const when: PromptMatch = { contains: ['faithful', 'chart'], hasImage: true }
 */
export const PromptMatchSchema = z.strictObject({
  /** Substring(s) of the prompt text; with an array, all must occur (case-sensitive). */
  contains: z.union([z.string(), z.array(z.string())]).optional(),
  /** JavaScript regular expression source tested against the prompt text. */
  regex: z
    .string()
    .refine(isRegExp, { error: 'is not a valid JavaScript regular expression; escape it as JSON (\\\\d, not \\d)' })
    .optional(),
  /** Flags for `regex`, e.g. `i`. */
  regexFlags: z
    .string()
    .regex(/^[dgimsuvy]*$/, { error: 'must only hold RegExp flags (dgimsuvy)' })
    .optional(),
  /** `response_format.json_schema.name` of the request. */
  schemaName: z.string().optional(),
  /** true: only requests with at least one image part; false: only requests without. */
  hasImage: z.boolean().optional(),
})
export type PromptMatch = z.infer<typeof PromptMatchSchema>

/**
 * What the fake judge answers. `fields` sets any schema property by name at any depth; a plain object
 * given for an object property is merged into the synthesized object. See `synthesize.ts` for the mapping.
 * @example
 * const respond: FakeJudgeRespond = { verdict: 'fail', reason: 'cites a 2019 figure', fields: { category: 'Formatting Errors' } }
 */
export const FakeJudgeRespondSchema = z.strictObject({
  verdict: z.enum(['pass', 'fail']).optional(),
  score: z.union([z.number(), z.boolean()]).optional(),
  reason: z.string().optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
})
export type FakeJudgeRespond = z.infer<typeof FakeJudgeRespondSchema>

/**
 * A scripted verdict: the first rule whose `when` matches a request answers it.
 * @example
 * const rule: FakeJudgeRule = { name: 'wrong-region', when: { contains: 'EMEA' }, respond: { verdict: 'fail', reason: 'wrong region' } }
 */
export const FakeJudgeRuleSchema = z.strictObject({
  /** Shown in `calls[].rule` and in the default reason. */
  name: z.string().optional(),
  when: PromptMatchSchema.optional(),
  respond: FakeJudgeRespondSchema,
})
export type FakeJudgeRule = z.infer<typeof FakeJudgeRuleSchema>

export const FAULT_TYPES = [
  'rate-limit',
  'server-error',
  'hang',
  'malformed-json',
  'out-of-range',
  'disconnect',
  'empty-choices',
] as const

/**
 * An injected failure. Faults are checked in order before rules; the first one selected answers.
 * Selection: `when` filters requests; `firstMs` limits to an outage window after start (or the last
 * `setFaults`/`reset`); `rate` picks a share (seeded PRNG with `seed`, else exactly every ⌈k/rate⌉-th);
 * `times` caps how often it fires. With none of `rate`/`times`/`firstMs`, every matching request fails.
 * @example
 * const fault: FakeJudgeFault = { type: 'rate-limit', rate: 0.1, seed: 7, retryAfter: '0.2' }
 */
export const FakeJudgeFaultSchema = z
  .strictObject({
    type: z.enum(FAULT_TYPES),
    /** HTTP status for `server-error` (default 500) — e.g. 502, 503, 504. */
    status: z.number().int().min(500).max(599).optional(),
    /** `retry-after` header value: seconds (`'0.2'`, `2`) or an HTTP-date; rate-limit defaults to `'1'`. */
    retryAfter: z.union([z.string().min(1), z.number().nonnegative()]).optional(),
    /** `retry-after-ms` header value in milliseconds. */
    retryAfterMs: z.number().nonnegative().optional(),
    /** Sends `retry-after` as an HTTP-date this many ms after the response. */
    retryAfterDateMs: z.number().nonnegative().optional(),
    rate: z.number().min(0).max(1).optional(),
    seed: z.number().int().optional(),
    times: z.number().int().nonnegative().optional(),
    firstMs: z.number().nonnegative().optional(),
    when: PromptMatchSchema.optional(),
    /**
     * Delay before a `rate-limit` / `server-error` answer, in ms (default 0: real gateways reject before
     * the model runs, so these do not wait the model latency). Other faults wait the normal latency.
     */
    delayMs: z.number().nonnegative().optional(),
  })
  .refine((f) => f.seed === undefined || f.rate !== undefined, {
    error: '`seed` only applies with `rate`; add a rate (0..1)',
    path: ['seed'],
  })
  .refine((f) => f.status === undefined || f.type === 'server-error', {
    error: '`status` only applies to server-error faults',
    path: ['status'],
  })
export type FakeJudgeFault = z.infer<typeof FakeJudgeFaultSchema>

/**
 * Delay before each answer, counted from the request's arrival (the fake's own work is inside it): fixed
 * milliseconds or a uniform range.
 * @example
 * const latency: FakeJudgeLatency = { min: 50, max: 150 }
 */
export const FakeJudgeLatencySchema = z.union([
  z.number().nonnegative(),
  z
    .strictObject({ min: z.number().nonnegative(), max: z.number().nonnegative() })
    .refine((r) => r.min <= r.max, { error: 'latency range needs min <= max' }),
])
export type FakeJudgeLatency = z.infer<typeof FakeJudgeLatencySchema>

/**
 * Answer when no rule matches: a verdict word or a full `respond` object.
 * @example
 * const fallback: FakeJudgeDefaultVerdict = { verdict: 'fail', reason: 'unscripted prompt' }
 */
export const FakeJudgeDefaultVerdictSchema = z.union([z.enum(['pass', 'fail']), FakeJudgeRespondSchema])
export type FakeJudgeDefaultVerdict = z.infer<typeof FakeJudgeDefaultVerdictSchema>

// The scripted behaviour, shared by the options and the JSON rules file.
const behaviour = {
  rules: z.array(FakeJudgeRuleSchema).optional(),
  defaultVerdict: FakeJudgeDefaultVerdictSchema.optional(),
  latencyMs: FakeJudgeLatencySchema.optional(),
  faults: z.array(FakeJudgeFaultSchema).optional(),
  /** Model id listed by `GET /v1/models` and echoed when a request names none (default `fake-judge`). */
  model: z.string().min(1).optional(),
}

/**
 * Options of `startFakeJudge`. Unknown keys are dropped so `beforeAll(startFakeJudge)` works too.
 * @example
 * const options: FakeJudgeOptions = { port: 0, latencyMs: 100, rules: [] }
 */
export const FakeJudgeOptionsSchema = z.object({
  /** 0 (default) picks a free port. */
  port: z.number().int().min(0).max(65535).optional(),
  /** Loopback by default; nothing else should need to reach a fake judge. */
  host: z.string().min(1).optional(),
  ...behaviour,
})
export type FakeJudgeOptions = z.infer<typeof FakeJudgeOptionsSchema>

/**
 * A rules file: a bare array of rules, or an object with `rules` and optionally `defaultVerdict`,
 * `latencyMs`, `faults` and `model`.
 * @example
 * const file: FakeJudgeRulesFile = { rules: [{ when: { contains: 'refund' }, respond: { verdict: 'fail' } }] }
 */
export const FakeJudgeRulesFileSchema = z.preprocess(
  (raw) => (Array.isArray(raw) ? { rules: raw } : raw),
  z.strictObject({ $schema: z.string().optional(), description: z.string().optional(), ...behaviour }),
)
export type FakeJudgeRulesFile = z.infer<typeof FakeJudgeRulesFileSchema>

/**
 * One chat-completion request as the fake judge saw and answered it.
 * @example
 * expect(judge.calls[0]).toMatchObject({ status: 429, fault: 'rate-limit' })
 */
export const FakeJudgeCallSchema = z.object({
  /** 1-based arrival order. */
  n: z.number().int(),
  /** When the request arrived (its body read), in ms since the server started; the latency counts from here. */
  at: z.number(),
  model: z.string(),
  /** System + user text, as rules see it. */
  prompt: z.string(),
  system: z.string(),
  imageCount: z.number().int(),
  responseFormat: z.enum(['json_schema', 'json_object', 'text', 'none']),
  schemaName: z.string().nullable(),
  /** HTTP status sent; null while pending and for `hang`/`disconnect`. */
  status: z.number().int().nullable(),
  fault: z.enum(FAULT_TYPES).nullable(),
  /** Name (or `#index`) of the rule that shaped the reply; `default` when none matched; null for HTTP-error faults and bad requests. */
  rule: z.string().nullable(),
  verdict: z.enum(['pass', 'fail']).nullable(),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }).nullable(),
  /** true when the client went away before the answer. */
  aborted: z.boolean(),
})
export type FakeJudgeCall = z.infer<typeof FakeJudgeCallSchema>

/**
 * Request counters of a running fake judge; `byStatus` is keyed by HTTP status, `byFault` by fault type.
 * @example
 * expect(judge.stats.byStatus['429']).toBe(2)
 */
export const FakeJudgeStatsSchema = z.object({
  /** Every HTTP request, including /v1/models and 404s. */
  requests: z.number().int(),
  byStatus: z.record(z.string(), z.number().int()),
  byFault: z.record(z.string(), z.number().int()),
  /** Most requests open at once (received, not yet answered or aborted). */
  maxInFlight: z.number().int(),
})
export type FakeJudgeStats = z.infer<typeof FakeJudgeStatsSchema>
