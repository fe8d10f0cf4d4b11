import type { Span } from '../../trace/span'
import {
  blankEchoedCode,
  classifyErrorText,
  ruleForHttpStatus,
  unrecognizedErrorRule,
  type ErrorRule,
} from './error-patterns'
import { quoteEvidence } from './finding'

/** Attributes that carry an HTTP response status (current and older OTel semantic conventions). */
const HTTP_STATUS_KEYS = ['http.response.status_code', 'http.status_code']

/** The error of one span, classified: which rule matched and a verbatim quote backing it. */
export interface ClassifiedError {
  rule: ErrorRule
  evidence: string
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value)
}

function httpStatusOf(span: Span): number | undefined {
  for (const key of HTTP_STATUS_KEYS) {
    const raw = span.attributes[key]
    const code = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : NaN
    if (Number.isInteger(code) && code >= 100 && code <= 599) return code
  }
  return undefined
}

function exceptionEvents(span: Span) {
  return span.events.filter((e) => e.name === 'exception')
}

/**
 * True if the span records an error: error status, an exception event, or an HTTP status ≥ 400 on a
 * span whose status was not explicitly set to ok (OTel marks client 4xx/5xx spans as errors).
 *
 * @example
 * hasErrorSignal(span) // true for a TOOL span with status 'error'
 */
export function hasErrorSignal(span: Span): boolean {
  if (span.status === 'error') return true
  if (span.events.length > 0 && span.events.some((e) => e.name === 'exception')) return true
  if (span.status !== 'ok') {
    const code = httpStatusOf(span)
    if (code !== undefined && code >= 400) return true
  }
  return false
}

/**
 * Classifies a span's error, most specific source first: exception type (e.g.
 * `litellm.exceptions.RateLimitError`), exception message, status message, `error.type`, then the HTTP
 * status attribute. Returns undefined when the span has no error or no rule recognizes it.
 *
 * @example
 * classifySpanError(toolSpan)?.rule.category // 'Authentication Errors' for "HTTPError: 403 Client Error"
 */
export function classifySpanError(span: Span): ClassifiedError | undefined {
  if (!hasErrorSignal(span)) return undefined
  const events = exceptionEvents(span)
  const messages: string[] = []
  for (const e of events) {
    const message = str(e.attributes['exception.message'])
    if (message !== '') messages.push(message)
  }
  if (span.statusMessage !== '') messages.push(span.statusMessage)

  for (const event of events) {
    const type = str(event.attributes['exception.type'])
    const hit = classifyErrorText(type)
    if (hit)
      return {
        rule: hit.rule,
        evidence: quoteTypeEvidence(type, span.statusMessage, str(event.attributes['exception.message'])),
      }
  }
  for (const message of messages) {
    const hit = classifyErrorText(blankEchoedCode(message))
    if (hit) return { rule: hit.rule, evidence: quoteEvidence(message, hit.index) }
  }
  const errorType = str(span.attributes['error.type'])
  if (errorType !== '') {
    const rule = /^\d{3}$/.test(errorType) ? ruleForHttpStatus(Number(errorType)) : classifyErrorText(errorType)?.rule
    if (rule) return { rule, evidence: quoteEvidence(messages[0] ?? errorType) }
  }
  const code = httpStatusOf(span)
  if (code !== undefined && code >= 400) {
    const rule = ruleForHttpStatus(code)
    if (rule) return { rule, evidence: quoteEvidence(messages[0] ?? String(code)) }
  }
  return undefined
}

/**
 * A span's error that {@link classifySpanError} does not recognize, under its fallback rule (model code or a
 * call, `unrecognizedErrorRule`, model code only under the smolagents profile): the evidence quotes the error's own line (after smolagents' echo of the code),
 * the reason names the exception type. Undefined when the span records no error.
 *
 * @example
 * unrecognizedSpanError(toolSpan, false) // { rule: { category: 'Environment Setup Errors', … }, evidence: "UnboundLocalError: cannot access local variable 'res' …" }
 */
export function unrecognizedSpanError(span: Span, smolagents: boolean): ClassifiedError | undefined {
  if (!hasErrorSignal(span)) return undefined
  const events = exceptionEvents(span)
  const types = events.map((e) => str(e.attributes['exception.type'])).filter((t) => t !== '')
  const texts = [
    ...events.map((e) => str(e.attributes['exception.message'])),
    span.statusMessage,
    str(span.attributes['error.type']),
  ].filter((t) => t !== '')
  const base = unrecognizedErrorRule([...types, ...texts].join('\n'), smolagents)
  const type = types[0] ?? str(span.attributes['error.type'])
  const code = httpStatusOf(span)
  const named = type !== '' ? type : code !== undefined ? `HTTP ${code}` : ''
  const rule: ErrorRule = { ...base, reason: named === '' ? base.reason : `${base.reason} (${named})` }
  const message = texts[0]
  if (message === undefined) return { rule, evidence: quoteEvidence(type) }
  // "Code execution failed at line '<code>' due to: X" — the quote starts at X, not at the model's code.
  const due = blankEchoedCode(message).indexOf(' due to: ')
  return { rule, evidence: quoteEvidence(due === -1 ? message : message.slice(due + ' due to: '.length)) }
}

/** A type name alone says little: quote the message line that names it, else the message, else the type. */
function quoteTypeEvidence(type: string, statusMessage: string, message: string): string {
  const short = type.slice(type.lastIndexOf('.') + 1)
  const at = statusMessage.indexOf(short)
  if (at !== -1) return quoteEvidence(statusMessage, at)
  if (statusMessage !== '') return quoteEvidence(statusMessage)
  if (message !== '') return quoteEvidence(message)
  return quoteEvidence(type)
}
