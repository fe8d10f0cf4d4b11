// The one place where error text maps to TRAIL categories. Detectors never match error strings themselves.
import type { ErrorCategory } from '../../taxonomy'

/**
 * Which span an error is blamed on:
 * - `source`: the LLM/TOOL span that raised it (a tool whose HTTP call failed, an LLM call that was throttled);
 * - `producer`: the LLM span whose output caused it (malformed code or tool-call arguments), as TRAIL
 *   annotates "the first span where the error shows" for model-output errors.
 */
export type Placement = 'source' | 'producer'

/** One row of the taxonomy lookup: a pattern over exception types, messages or status text. */
export interface ErrorRule {
  id: string
  category: ErrorCategory
  pattern: RegExp
  placement: Placement
  /** Why this text means this category, phrased for a person reading the diagnosis. */
  reason: string
}

/** Matches an HTTP status from `codes` in prose: "HTTP 404", "status code: 429", "Error 403", "503 Server Error". */
function httpStatus(codes: string): string {
  return String.raw`(?:\bHTTP(?:\/\d(?:\.\d)?)?|\bstatus(?:[ _]?code)?|\bError(?: code)?|\bcode)[\s:=#"']{0,4}(?:${codes})\b|\b(?:${codes}) (?:Client |Server )?Error\b`
}

function rule(
  id: string,
  category: ErrorCategory,
  placement: Placement,
  reason: string,
  ...sources: string[]
): ErrorRule {
  return { id, category, placement, reason, pattern: new RegExp(sources.join('|'), 'i') }
}

/**
 * Ordered: the first rule that matches wins, so specific rules come before generic ones
 * (a code parse error mentions "was not found"; a missing module is a `ModuleNotFoundError`;
 * an exhausted quota arrives as HTTP 429).
 *
 * @example
 * ERROR_RULES.filter((r) => r.category === 'Formatting Errors').map((r) => r.id) // ['model-output-unparseable', 'tool-call-arguments']
 */
export const ERROR_RULES: readonly ErrorRule[] = [
  rule(
    'model-output-unparseable',
    'Formatting Errors',
    'producer',
    'the model output could not be parsed (code block or tool-call format broken)',
    'AgentParsingError',
    'Error in code parsing',
    String.raw`regex pattern .{0,120}? was not found`,
    'Code parsing failed',
    'unterminated (?:triple-quoted )?string literal',
    'The JSON blob you used is invalid',
    'does not contain any JSON blob',
    String.raw`(?:invalid|malformed) JSON (?:in |for )?(?:the )?(?:tool|function) call`,
    String.raw`(?:tool|function) call arguments? (?:are |is )?not valid JSON`,
    String.raw`Failed to parse (?:the )?(?:tool|function) call`,
    'OutputParserException',
    'Could not parse LLM output',
  ),
  rule(
    'tool-call-arguments',
    'Formatting Errors',
    'producer',
    'the model called a tool or function with arguments it does not accept',
    'got an unexpected keyword argument',
    String.raw`missing \d+ required (?:positional |keyword-only )?arguments?`,
    'got multiple values for (?:keyword )?argument',
    String.raw`takes (?:from )?\d+(?: to \d+)? positional arguments? but \d+ (?:were|was) given`,
    String.raw`Invalid (?:arguments?|input) (?:for|to) (?:the )?tool`,
    String.raw`Key \S+ not found in the generated tool call`,
  ),
  rule(
    'environment',
    'Environment Setup Errors',
    'producer',
    'the environment lacks what the call needs (a module, a file converter, a permission)',
    'ModuleNotFoundError',
    'No module named',
    String.raw`\bImportError\b`,
    String.raw`Import (?:of|from) \S+ is not allowed`,
    'UnsupportedFormatException',
    'FileConversionException',
    String.raw`\bis not supported\b`,
    String.raw`\bnot installed\b`,
    'command not found',
    'PermissionError',
    String.raw`\[Errno 13\]`,
    'EACCES',
  ),
  rule(
    'no-results',
    'Poor Information Retrieval',
    'producer',
    'the search found nothing for the query the model wrote (too specific or off target)',
    'No results found',
    'returned no results',
    'found no results',
    'no search results',
  ),
  rule(
    'exhausted',
    'Resource Exhaustion',
    'source',
    'a hard resource limit was hit (context window, memory, disk, quota or operation cap)',
    String.raw`context[ _-]?(?:window|length)[ _-]?(?:exceeded|error)`,
    'ContextWindowExceeded',
    'maximum context length',
    'prompt is too long',
    'insufficient_quota',
    'exceeded your current quota',
    String.raw`quota (?:exceeded|exhausted)`,
    'QuotaExceeded',
    'out of memory',
    'OutOfMemory',
    String.raw`\bMemoryError\b`,
    'No space left on device',
    'Disk quota exceeded',
    'Reached the max number of operations',
    'RESOURCE_EXHAUSTED',
    'ResourceExhausted',
  ),
  rule(
    'timeout',
    'Timeout Issues',
    'source',
    'the call did not finish in time',
    'TimeoutError',
    'ReadTimeout',
    'ConnectTimeout',
    'timed out',
    'DEADLINE_EXCEEDED',
    'DeadlineExceeded',
    'deadline exceeded',
    'ETIMEDOUT',
    'Gateway Timeout',
    'Request Timeout',
    httpStatus('408|504'),
  ),
  rule(
    'rate-limited',
    'Rate Limiting',
    'source',
    'the provider throttled the call (rate limit / HTTP 429)',
    httpStatus('429'),
    'RateLimitError',
    String.raw`rate[ _-]?limit`,
    'Too Many Requests',
    'Throttl(?:ed|ing)',
    'SlowDown',
  ),
  rule(
    'auth',
    'Authentication Errors',
    'source',
    'the service refused the credentials or the access (HTTP 401/403)',
    httpStatus('401|403'),
    String.raw`Unauthori[sz]ed`,
    'Forbidden',
    'AuthenticationError',
    'PermissionDeniedError',
    String.raw`invalid[ _-]?api[ _-]?key`,
    String.raw`incorrect api key`,
    String.raw`access denied`,
    'AccessDenied',
    'ExpiredToken',
    'UnrecognizedClientException',
    'InvalidSignatureException',
  ),
  rule(
    'service',
    'Service Errors',
    'source',
    'the service failed or was unreachable (HTTP 5xx, overload, dropped connection)',
    httpStatus(String.raw`5\d\d`),
    'InternalServerError',
    'Internal Server Error',
    'ServiceUnavailable',
    'Service Unavailable',
    'Bad Gateway',
    String.raw`\boverloaded`,
    'APIConnectionError',
    'Connection aborted',
    'RemoteDisconnected',
    'Connection reset',
    'ECONNRESET',
    'ECONNREFUSED',
    'Connection refused',
  ),
  rule(
    'not-found',
    'Resource Not Found',
    'source',
    'the requested file, page or resource does not exist (HTTP 404)',
    httpStatus('404|410'),
    'FileNotFoundError',
    'No such file or directory',
    'ENOENT',
    'NotFoundError',
    'NoSuchKey',
    'NoSuchBucket',
    'ResourceNotFound',
    String.raw`\bnot found\b`,
    String.raw`\bdoes not exist\b`,
  ),
]

/** Matches nothing: the fallback rules are chosen by where the error arose, never by its text. */
const NEVER = /(?!)/

/**
 * The rules for an error that no rule in {@link ERROR_RULES} recognizes (an `UnboundLocalError` inside a tool,
 * a `TypeError` in code the model wrote). An error is still an error: without these the span would yield no
 * finding and `diagnose` would exit 0 on it (decision 0029). The category is the one TRAIL's annotators chose
 * most often for such errors in their evidence texts (in-sample: the 90 TRAIL traces are all there is to count):
 * - code the model wrote that failed when run: Formatting Errors (20 of 33 annotated code-execution failures);
 * - anything else (a tool or call that raised): Environment Setup Errors, as the annotators filed a tool's own
 *   crash (`UnboundLocalError` inside `inspect_file_as_text`); no category wins clearly there, so the reason
 *   says the cause is unrecognized and the evidence quotes the error.
 */
export const UNRECOGNIZED_ERROR_RULES = {
  modelCode: {
    id: 'unrecognized-model-code',
    category: 'Formatting Errors',
    placement: 'producer',
    reason: 'code the model wrote failed when run, with an error no rule recognizes',
    pattern: NEVER,
  },
  call: {
    id: 'unrecognized',
    category: 'Environment Setup Errors',
    placement: 'source',
    reason: 'the call failed with an error no rule recognizes',
    pattern: NEVER,
  },
} as const satisfies Record<string, ErrorRule>

/** smolagents' wording for code the model wrote that raised when run (its interpreter's own errors included). */
const MODEL_CODE_FAILED = /Code execution failed|\bInterpreterError\b|\bAgentExecutionError\b/

/**
 * The fallback rule for an error text that {@link classifyErrorText} does not recognize: model code or a call.
 * Model code is recognized by smolagents' wording, so only when `smolagents` is true (its profile is active).
 *
 * @example
 * unrecognizedErrorRule("Code execution failed at line 'x()' due to: TypeError", true).category // 'Formatting Errors'
 */
export function unrecognizedErrorRule(text: string, smolagents: boolean): ErrorRule {
  return smolagents && MODEL_CODE_FAILED.test(text) ? UNRECOGNIZED_ERROR_RULES.modelCode : UNRECOGNIZED_ERROR_RULES.call
}

const RULE_BY_ID = new Map(ERROR_RULES.map((r) => [r.id, r]))

/** A rule that matched, and where in the text. */
export interface RuleMatch {
  rule: ErrorRule
  index: number
  text: string
}

/**
 * The first rule (in {@link ERROR_RULES} order) that matches the text, or undefined.
 *
 * @example
 * classifyErrorText('litellm.RateLimitError: AnthropicException - rate_limit_error')?.rule.category // 'Rate Limiting'
 */
export function classifyErrorText(text: string): RuleMatch | undefined {
  if (text === '') return undefined
  for (const r of ERROR_RULES) {
    const m = r.pattern.exec(text)
    if (m) return { rule: r, index: m.index, text: m[0] }
  }
  return undefined
}

/**
 * The rule for an HTTP status code (from `http.response.status_code` and the like), or undefined
 * for codes that carry no category (e.g. 400, 409).
 *
 * @example
 * ruleForHttpStatus(503)?.category // 'Service Errors'
 */
export function ruleForHttpStatus(code: number): ErrorRule | undefined {
  if (code === 401 || code === 403) return RULE_BY_ID.get('auth')
  if (code === 404 || code === 410) return RULE_BY_ID.get('not-found')
  if (code === 408 || code === 504) return RULE_BY_ID.get('timeout')
  if (code === 429) return RULE_BY_ID.get('rate-limited')
  if (code >= 500 && code <= 599) return RULE_BY_ID.get('service')
  return undefined
}

/**
 * A line near the start of a successful tool output that says the call actually failed: a fetched page
 * titled "Error 403", a "## Error" heading, "HTTP/1.1 503 …", "404 Client Error". Only the head of the
 * output is searched, so a page that merely discusses errors is not flagged.
 */
export const OUTPUT_ERROR_MARKER =
  /^(?:Title: |#+ )?Error\b.*$|^.*\b[45]\d\d (?:Client|Server) Error\b.*$|^HTTP\/\d(?:\.\d)? [45]\d\d\b.*$/m

/** How much of a tool output's start is searched for {@link OUTPUT_ERROR_MARKER}. */
export const OUTPUT_HEAD_CHARS = 600

// smolagents echoes the failing code and the tool arguments in its messages ("Code execution failed at
// line '<code>' due to: …", "Error when executing tool x with arguments {…}: …"); the echo is the model's
// text, not the error, so it is blanked (same length, so match offsets still point into the original).
const ECHOED_CODE =
  /(?:failed|error) at line '([\s\S]*?)' due to: |executing tool \S+ with arguments (\{[\s\S]*?\}): /gi

/**
 * The text with echoed code and tool arguments replaced by spaces of the same length, so a rule never
 * matches what the model wrote (a `timeout=` argument, a "404" in a query) instead of the error.
 *
 * @example
 * blankEchoedCode("Code execution failed at line 'get(timeout=1)' due to: KeyError") // "… at line '              ' due to: KeyError"
 */
export function blankEchoedCode(text: string): string {
  if (!text.includes(' due to: ') && !text.includes('with arguments {')) return text
  return text.replace(ECHOED_CODE, (whole: string, code?: string, args?: string) => {
    const echoed = code ?? args ?? ''
    const at = whole.indexOf(echoed)
    return whole.slice(0, at) + ' '.repeat(echoed.length) + whole.slice(at + echoed.length)
  })
}
