// Everything the CLI prints passes the scrubber: a trace's span evidence, a judge's reason or an error can carry
// a key (issue 33, class 8), and a terminal log or CI transcript is written output like any report file.
import { scrubSecrets } from '../config/secrets'

type Writable = { write(chunk: string): unknown; isTTY?: boolean; columns?: number }
const SCRUBBED = Symbol('agent-verdict.scrubbed')

/**
 * `stream` with every written string scrubbed of secrets; `isTTY` and `columns` read through. Wrapping twice
 * is a no-op.
 *
 * @example
 * const stdout = scrubbedStream(process.stdout)
 * stdout.write(`evidence: ${span.output}\n`) // any key in it is [redacted]
 */
export function scrubbedStream<T extends Writable>(stream: T): T {
  if ((stream as { [SCRUBBED]?: true })[SCRUBBED]) return stream
  const wrapped = {
    [SCRUBBED]: true,
    write: (chunk: string) => stream.write(typeof chunk === 'string' ? scrubSecrets(chunk) : chunk),
    get isTTY() {
      return stream.isTTY
    },
    get columns() {
      return stream.columns
    },
  }
  return wrapped as unknown as T
}
