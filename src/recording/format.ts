// The agent recording file: zod schemas (built on first use, as the verdict cassette's), its text and its parser.
// Entries are grouped by test, in call order; each opens with a short summary for review, then the request as it
// is matched and the response as it is replayed. See docs/decisions/0034-agent-recordings.md.
import * as z from 'zod'

/** The format this version writes; a newer one is refused with a message, an older one would be migrated. */
export const RECORDING_VERSION = 1

function buildRecordingSchemas() {
  /** One server-sent event as it came: `event`/`id`/`retry` when sent, `data` parsed as JSON when it is JSON. */
  const sseEvent = z.object({
    event: z.string().optional(),
    id: z.string().optional(),
    retry: z.number().optional(),
    data: z.json(),
    /** True when `data` was text that is not JSON (`[DONE]`), replayed as written. */
    text: z.literal(true).optional(),
  })
  /** One AWS event-stream frame (Bedrock ConverseStream), decoded; re-encoded byte for byte on replay. */
  const frame = z.object({
    headers: z.record(z.string(), z.string()),
    payload: z.json().optional(),
    payloadBase64: z.string().optional(),
  })
  /** A body as it is kept: readable where the bytes allow it, lossless always. */
  const body = z.union([
    z.object({ json: z.json() }),
    z.object({ text: z.string() }),
    z.object({ events: z.array(sseEvent) }),
    z.object({ frames: z.array(frame) }),
    z.object({ base64: z.string() }),
    /** Request bodies only: too large or binary to keep, matched by this digest (`sha256:…`). */
    z.object({ digest: z.string() }),
  ])
  const summary = z.object({
    model: z.string().optional(),
    system: z.string().optional(),
    user: z.string().optional(),
    answer: z.string().optional(),
  })
  const call = z.object({
    summary: summary.optional(),
    request: z.object({ method: z.string(), url: z.string(), body: body.optional() }),
    response: z.object({
      status: z.number().int(),
      statusText: z.string().optional(),
      headers: z.record(z.string(), z.string()),
      body: body.optional(),
    }),
    /** How long the call took when recorded, to the end of its response body (replayed runs report it). */
    durationMs: z.number().nonnegative(),
  })
  const test = z.object({ test: z.string(), calls: z.array(call) })
  const file = z.object({ version: z.literal(RECORDING_VERSION), tests: z.array(test) })
  return { sseEvent, frame, body, summary, call, test, file }
}

type RecordingSchemas = ReturnType<typeof buildRecordingSchemas>
let schemas: RecordingSchemas | undefined

/**
 * The recording file's zod schemas (`body`, `call`, `test`, `file`…), built once, on first use.
 *
 * @example
 * recordingSchemas().call.parse(entry).durationMs // 812
 */
export function recordingSchemas(): RecordingSchemas {
  schemas ??= buildRecordingSchemas()
  return schemas
}

/** A body as stored (see {@link recordingSchemas}). */
export type RecordedBody = z.infer<RecordingSchemas['body']>
/** One server-sent event as stored. */
export type RecordedEvent = z.infer<RecordingSchemas['sseEvent']>
/** One event-stream frame as stored. */
export type RecordedFrame = z.infer<RecordingSchemas['frame']>
/** The review summary of a call. */
export type CallSummary = z.infer<RecordingSchemas['summary']>
/** One recorded call. */
export type RecordedCall = z.infer<RecordingSchemas['call']>
/** A recording file in memory. */
export type RecordingFile = z.infer<RecordingSchemas['file']>

/** Thrown for a recording file that cannot be read; says which file and what to do. */
export class RecordingFormatError extends Error {
  override name = 'RecordingFormatError'
}

/**
 * The file's text: tests sorted by name (code-unit order), calls in call order, keys in the schema's order, two-space
 * JSON and a trailing newline. The same calls always give the same bytes.
 *
 * @example
 * await writeFile(path, serializeRecording(file))
 */
export function serializeRecording(file: RecordingFile): string {
  const tests = [...file.tests]
    .filter((t) => t.calls.length > 0)
    .sort((a, b) => (a.test < b.test ? -1 : a.test > b.test ? 1 : 0))
  if (tests.length === 0) return `{\n  "version": ${RECORDING_VERSION},\n  "tests": []\n}\n`
  // What `JSON.stringify({ version, tests }, null, 2)` writes, assembled from each call's text: the file is rewritten
  // on every recorded call, and only the new calls need stringifying (a call is never edited in place).
  const body = tests
    .map(
      (t) =>
        `    {\n      "test": ${JSON.stringify(t.test)},\n      "calls": [\n${t.calls.map(callText).join(',\n')}\n      ]\n    }`,
    )
    .join(',\n')
  return `{\n  "version": ${RECORDING_VERSION},\n  "tests": [\n${body}\n  ]\n}\n`
}

const callTexts = new WeakMap<RecordedCall, string>()

/** A call's two-space JSON, indented to its depth in the file (remembered per call object). */
function callText(call: RecordedCall): string {
  let text = callTexts.get(call)
  if (text === undefined) {
    // Split on \n only: JSON keeps U+2028 raw inside strings, and a multiline regex would take it for a line end.
    text = `        ${JSON.stringify(orderCall(call), null, 2).split('\n').join('\n        ')}`
    callTexts.set(call, text)
  }
  return text
}

/** A call with its keys in review order, whatever order it was built in. */
function orderCall(c: RecordedCall): RecordedCall {
  return {
    ...(c.summary ? { summary: c.summary } : {}),
    request: { method: c.request.method, url: c.request.url, ...(c.request.body ? { body: c.request.body } : {}) },
    response: {
      status: c.response.status,
      ...(c.response.statusText ? { statusText: c.response.statusText } : {}),
      headers: Object.fromEntries(Object.entries(c.response.headers).sort(([a], [b]) => (a < b ? -1 : 1))),
      ...(c.response.body ? { body: c.response.body } : {}),
    },
    durationMs: c.durationMs,
  }
}

/**
 * Parses a recording file's text; throws a {@link RecordingFormatError} naming `file` and the fix.
 *
 * @example
 * parseRecording(readFileSync(path, 'utf8'), path).tests.length
 */
export function parseRecording(text: string, file: string): RecordingFile {
  const fix = `delete it to re-record (AGENT_VERDICT_MODE=record), or fix it${text.includes('<<<<<<<') ? ' (it has unresolved git merge conflict markers)' : ''}`
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new RecordingFormatError(`agent recording ${file} is not valid JSON (${(err as Error).message}) — ${fix}`)
  }
  const version = (json as { version?: unknown } | null)?.version
  if (typeof version === 'number' && version > RECORDING_VERSION) {
    throw new RecordingFormatError(
      `agent recording ${file} has format version ${version}, newer than this agent-verdict reads (${RECORDING_VERSION}) — upgrade agent-verdict, or delete it to re-record`,
    )
  }
  const parsed = recordingSchemas().file.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new RecordingFormatError(
      `agent recording ${file} is not valid: at ${issue.path.join('.') || '(root)'}: ${issue.message} — ${fix}`,
    )
  }
  return parsed.data
}
