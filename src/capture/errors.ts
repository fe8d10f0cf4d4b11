/**
 * `captureTrace` could not capture: an OpenTelemetry package it needs is not installed, or the registered
 * tracer provider does not hand its spans to agent-verdict. The message says what to install or add.
 *
 * @example
 * try { await captureTrace(() => agent.run(q)) } catch (e) { if (e instanceof TraceCaptureError) console.error(e.message) }
 */
export class TraceCaptureError extends Error {
  override readonly name = 'TraceCaptureError'
}
