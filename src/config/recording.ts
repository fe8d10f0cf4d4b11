// Agent recordings' settings: the one parser of AGENT_VERDICT_RECORDINGS and of the options the Vitest plugin and
// `recordAgentCalls()` take. Free of zod (the plugin's process checks them too), so checked by hand.
import { type Env, SettingError } from './env'

/** Env var turning agent recordings off (`off`), or on for every test file (`all`). */
export const RECORDINGS_ENV = 'AGENT_VERDICT_RECORDINGS'

/**
 * Which test files record their agent's HTTP calls: `default` (eval files with the Vitest plugin, and files that
 * import `agent-verdict/record`), `all` test files, or `off`.
 *
 * @example
 * readRecordingsScope({ AGENT_VERDICT_RECORDINGS: 'off' }) // 'off'
 */
export function readRecordingsScope(env: Env = process.env): 'default' | 'all' | 'off' {
  const raw = env[RECORDINGS_ENV]?.trim().toLowerCase()
  if (!raw) return 'default'
  if (['off', '0', 'false', 'no'].includes(raw)) return 'off'
  if (['all', 'on', '1', 'true', 'yes'].includes(raw)) return 'all'
  throw new SettingError(
    `${RECORDINGS_ENV}=${JSON.stringify(env[RECORDINGS_ENV])} is not a setting — use off (no agent recordings), all (every test file), or leave it unset (eval files, and files importing agent-verdict/record)`,
    RECORDINGS_ENV,
  )
}

/**
 * What narrows agent recordings (JSON-safe: the Vitest plugin hands it to each worker).
 *
 * @example
 * const options: RecordingOptions = { skipHosts: ['telemetry.example.com'], ignoreBodyFields: ['metadata.request_id'] }
 */
export interface RecordingOptions {
  /** Only these hosts are recorded (`api.openai.com`, `127.0.0.1:11434`, `*.amazonaws.com`); default every host. */
  hosts?: string[]
  /** These hosts are never recorded (their calls go out as they are, also in CI). */
  skipHosts?: string[]
  /** JSON body fields that change per call and must not break a match (`metadata.request_id`, `messages[*].id`). */
  ignoreBodyFields?: string[]
}

/**
 * Checks recording options (from a plugin config or code); a bad one throws saying what to write.
 *
 * @example
 * checkRecordingOptions({ hosts: ['127.0.0.1'] }, 'agentVerdict({ recordings })')
 */
export function checkRecordingOptions(options: unknown, where: string): RecordingOptions {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(`${where} must be an object like { skipHosts: ['example.com'] } or false`)
  const out: RecordingOptions = {}
  for (const [name, value] of Object.entries(options)) {
    if (!['hosts', 'skipHosts', 'ignoreBodyFields'].includes(name))
      throw new TypeError(`${where}: unknown option "${name}" — use hosts, skipHosts or ignoreBodyFields`)
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === ''))
      throw new TypeError(`${where}: ${name} must be a list of non-empty strings, got ${JSON.stringify(value)}`)
    out[name as keyof RecordingOptions] = value as string[]
  }
  return out
}

function hostPattern(glob: string): RegExp {
  const body = glob
    .trim()
    .toLowerCase()
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^:]*')
  return new RegExp(`^${body}$`)
}

/**
 * Whether a URL's host is recorded under `options`: a pattern with a port matches `host:port`, one without matches
 * the host name on any port.
 *
 * @example
 * hostRecorded(new URL('http://127.0.0.1:4010/v1'), { skipHosts: ['127.0.0.1:4010'] }) // false
 */
export function hostRecorded(url: URL, options: RecordingOptions): boolean {
  const test = (glob: string) => hostPattern(glob).test(glob.includes(':') ? url.host : url.hostname)
  if (options.skipHosts?.some(test)) return false
  return options.hosts === undefined || options.hosts.some(test)
}
