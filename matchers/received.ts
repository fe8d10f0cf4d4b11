import * as z from 'zod'
import { MetricImageSchema } from '../src/metrics/metric'

/**
 * What the output matchers accept as `expect(received)`: the output text, or an object carrying it
 * with the input it answered and the image it is about.
 */
export const ReceivedOutputSchema = z.union([
  z.string(),
  z.object({
    output: z.string(),
    input: z.string().optional(),
    image: MetricImageSchema.optional(),
  }),
])
export type ReceivedOutput = z.infer<typeof ReceivedOutputSchema>

/** The received value, normalized to the object form. */
export type NormalizedReceived = Exclude<ReceivedOutput, string>

/** What the matchers accept, for error messages. */
export const RECEIVED_HELP =
  'a string (the output) or { output: string, input?: string, image?: path | Buffer | Uint8Array | URL | data URL }'

/**
 * Validates and normalizes `received`; returns an error text saying what is accepted when it is wrong.
 *
 * @example
 * parseReceived('North America') // { ok: true, value: { output: 'North America' } }
 * parseReceived(42) // { ok: false, error: 'received must be a string (the output) or { output… } — got number' }
 */
export function parseReceived(
  received: unknown,
): { ok: true; value: NormalizedReceived } | { ok: false; error: string } {
  const parsed = ReceivedOutputSchema.safeParse(received)
  if (parsed.success)
    return { ok: true, value: typeof parsed.data === 'string' ? { output: parsed.data } : parsed.data }
  return { ok: false, error: `received must be ${RECEIVED_HELP} — got ${describe(received)}` }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value !== 'object') return typeof value
  const keys = Object.keys(value)
  if (!('output' in value)) return `an object without "output" (keys: ${keys.slice(0, 5).join(', ') || 'none'})`
  const output = (value as { output: unknown }).output
  if (typeof output !== 'string')
    return `an object whose "output" is ${output === null ? 'null' : typeof output}, not a string`
  return `an object with an invalid field (${keys.join(', ')}): input must be a string, image a path, bytes or URL`
}
