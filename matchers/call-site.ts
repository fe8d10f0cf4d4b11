// Errors of async matchers end in the user's test line: the frames after an `await` inside the matcher
// no longer reach the test, so the call site, captured when the matcher is called, is appended.

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

/**
 * Wraps a matcher so an error it rejects with carries the frames of the line that called it, as the
 * runners' own async matchers do (`Error.captureStackTrace` at the call). Synchronous results and
 * thrown errors pass through unchanged.
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
    const result = call.apply(this, args)
    if (result instanceof Promise)
      return result.catch((error: unknown) => {
        throw withCallSite(error, site.stack)
      })
    return result
  }
  Object.defineProperty(wrapped, 'name', { value: matcher.name })
  return wrapped as unknown as F
}
