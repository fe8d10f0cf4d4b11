// Errors of async matchers end in the user's test line: the frames after an `await` inside the matcher
// no longer reach the test, so the call site, captured when the matcher is called, is appended. And what a
// matcher hands the runner to print (its message, actual and expected, an error) is scrubbed of secrets.
import { scrubDeep, scrubSecrets } from '../src/config/secrets'
import { terminalSafe } from '../src/verdict/safe-text'

const FRAMES = /\n {4}at /

/** `Name: message` and the frames of a stack, split where the frames start. */
function split(stack: string): { head: string; frames: string } {
  const at = stack.search(FRAMES)
  return at < 0 ? { head: stack, frames: '' } : { head: stack.slice(0, at), frames: stack.slice(at) }
}

/**
 * The error with the call site's frames after its own, unless its stack already passes through the call
 * site (a synchronous throw). The message and the error's own frames are kept.
 *
 * @example
 * throw withCallSite(error, callSite.stack)
 */
export function withCallSite(error: unknown, callSiteStack: string | undefined): unknown {
  if (!(error instanceof Error) || typeof error.stack !== 'string' || !callSiteStack) return error
  const site = split(callSiteStack).frames
  const firstSiteFrame = site.split('\n')[1]
  if (!site || (firstSiteFrame !== undefined && error.stack.includes(firstSiteFrame))) return error
  const own = split(error.stack)
  try {
    error.stack = `${own.head}${own.frames}${site}`
  } catch {
    // A frozen or getter-only stack: the error is still right, only its stack stays short.
  }
  return error
}

// In a whole message only the runner's own colours (SGR: ESC [ … m), line breaks and tabs are ours: any other escape
// sequence, a carriage return, a C1 control or a bidi override came from judged text a field-level guard missed.
// eslint-disable-next-line no-control-regex
const NOT_OURS =
  /\u001b(?!\[[0-9;]*m)|[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/** A whole matcher message made unable to move the cursor or rewrite a line, its colours and lines kept. */
export function terminalMessage(text: string): string {
  return text.replace(NOT_OURS, terminalSafe)
}

/**
 * A matcher's result as the runner prints it, scrubbed of the secrets known when it is read: the message
 * (built lazily, so secrets registered meanwhile count), and `actual`/`expected` (e.g. a tool call's
 * arguments), read only when the runner prints a failure. The judged text a message quotes is the user's own,
 * and may hold a key (decision 0017).
 *
 * @example
 * return scrubbedResult({ pass, message })
 */
export function scrubbedResult(result: unknown): unknown {
  if (!result || typeof result !== 'object') return result
  const r = result as { message?: unknown; actual?: unknown; expected?: unknown }
  const out: Record<string, unknown> = { ...r }
  const message = r.message
  if (typeof message === 'function') out.message = () => terminalMessage(scrubSecrets(String(message.call(r))))
  for (const key of ['actual', 'expected'] as const)
    if (key in r) Object.defineProperty(out, key, { enumerable: true, get: () => scrubDeep(r[key]) })
  return out
}

/** The error with its message and stack scrubbed of known secrets (the same object, rethrown). */
export function scrubbedError(error: unknown): unknown {
  if (!(error instanceof Error)) return error
  try {
    error.message = scrubSecrets(error.message)
    if (typeof error.stack === 'string') error.stack = scrubSecrets(error.stack)
  } catch {
    // A frozen error: it is thrown as it is.
  }
  return error
}

const CALL_SITE = Symbol.for('agent-verdict.call-site')

/** The stack captured where the test called the matcher (set on its matcher context), if known. */
export function callSiteOf(ctx: unknown): string | undefined {
  const site = (ctx as { [CALL_SITE]?: unknown } | null | undefined)?.[CALL_SITE]
  return typeof site === 'string' ? site : undefined
}

/**
 * The frames of a call-site stack from the first one in the user's code: the runner's own `expect` frames
 * (node_modules, Node internals) come first in it and say nothing about which line forgot something.
 */
export function userFrames(stack: string | undefined): string {
  const frames = split(stack ?? '')
    .frames.split('\n')
    .filter(Boolean)
  const first = frames.findIndex((f) => !/node_modules|\(node:|at node:|\/dist\/(chunk-|vitest|jest)/.test(f))
  return first < 0 ? '' : `\n${frames.slice(first).join('\n')}`
}

type FailureRecorder = (ctx: unknown, matcher: string) => void
let recordFailure: FailureRecorder | undefined

/**
 * Set by the verdict attachment code when it loads: records a matcher that threw (a replay miss, a judge
 * configuration error, received values it cannot read) as a failed assertion of the running test, so every
 * report lists the test with its error — it produced no verdict to carry it there. Kept as a hook so the setup
 * entry, which wraps its stand-ins here, loads none of that code (decision 0031).
 */
export function onMatcherError(recorder: FailureRecorder): void {
  recordFailure = recorder
}

function recorded(ctx: unknown, matcher: string, error: unknown): unknown {
  try {
    recordFailure?.(ctx, matcher)
  } catch {
    // Bookkeeping for the report must never replace the matcher's own error.
  }
  return error
}

/**
 * Wraps a matcher so an error it rejects with carries the frames of the line that called it, as the
 * runners' own async matchers do (`Error.captureStackTrace` at the call), and so what it hands the runner
 * to print — its result's message, actual and expected, or its error — is scrubbed of secrets.
 *
 * @example
 * expect.extend({ toBeCorrect: atCallSite(toBeCorrect) })
 */
export function atCallSite<F extends (...args: never[]) => unknown>(matcher: F): F {
  const call = matcher as unknown as (this: unknown, ...args: unknown[]) => unknown
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    const site: { stack?: string } = {}
    // Captured now, while the test's frame is still on the stack; frames above `wrapped` are left out.
    Error.captureStackTrace(site, wrapped)
    // Kept on this call's matcher context, for errors raised after the test has moved on (a forgotten await).
    if (this !== null && typeof this === 'object')
      try {
        Object.defineProperty(this, CALL_SITE, { value: site.stack, configurable: true })
      } catch {
        // A frozen context: such errors then keep the hook's own stack.
      }
    let result: unknown
    try {
      result = call.apply(this, args)
    } catch (error) {
      throw scrubbedError(recorded(this, matcher.name, error))
    }
    if (result instanceof Promise)
      return result.then(scrubbedResult, (error: unknown) => {
        throw scrubbedError(withCallSite(recorded(this, matcher.name, error), site.stack))
      })
    return scrubbedResult(result)
  }
  Object.defineProperty(wrapped, 'name', { value: matcher.name })
  return wrapped as unknown as F
}
