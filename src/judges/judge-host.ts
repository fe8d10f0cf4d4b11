// The coordinator's side of a remote judge call (decision 0032): loaded by the run's coordinator on the
// first call or warm-up a worker sends, never by a worker. The OpenAI SDK and the HTTP work of every
// OpenAI-compatible judge call of the run live here, in the runner's main process.
import type OpenAI from 'openai'
import { registerHeaderSecrets, registerSecret } from '../config/secrets'
import { classifyJudgeError } from './classify-error'
import { judgeErrorToWire, type RemoteCall, type RemoteClientOptions, type RemoteResult } from './remote-call'
import { REPLY_WATCH, type ReplyProgress, replyLimits } from './reply-watch'
import { loadOpenAI, newOpenAIClient } from './sdk'

const clients = new Map<string, Promise<OpenAI>>()

/**
 * Loads the SDK ahead of the first call and runs one request through it against a canned answer (no
 * network): the first real call would otherwise spend ~20 ms compiling the SDK's request and response code.
 */
export async function warmJudgeHost(): Promise<void> {
  const { default: OpenAIClient } = await loadOpenAI()
  const { LightHeaders } = await import('./http-transport')
  const answer = JSON.stringify({
    id: 'warm',
    object: 'chat.completion',
    created: 0,
    model: 'warm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{}' } }],
  })
  const canned = async () => ({
    status: 200,
    statusText: 'OK',
    ok: true,
    url: 'http://127.0.0.1/v1/chat/completions',
    headers: new LightHeaders({ 'content-type': 'application/json' }),
    body: null,
    text: async () => answer,
    json: async () => JSON.parse(answer),
    arrayBuffer: async () => new TextEncoder().encode(answer).buffer,
  })
  const client = new OpenAIClient({
    apiKey: 'warm-up',
    baseURL: 'http://127.0.0.1/v1',
    maxRetries: 0,
    fetch: canned as unknown as typeof globalThis.fetch,
  })
  await client.chat.completions.create({ model: 'warm', messages: [{ role: 'user', content: 'warm' }] }).catch(() => {})
}

/** What a slow reply's progress message carries: the status, bytes so far, and ages in ms. */
export interface RemoteProgress {
  status: number
  bytes: number
  sinceMs: number
  idleMs?: number
}

/** A reply still arriving this long after its headers is reported to the worker (a fast one never is). */
const PROGRESS_EVERY_MS = 1_000

/**
 * Makes one chat-completions request for a worker and answers with the completion or the classified
 * error; never throws. `signal` is aborted when the worker cancels or goes away. The reply is read within the
 * call's `maxReplyBytes`; while a reply is still arriving after a second, `onProgress` hears what came so far.
 *
 * @example
 * const result = await runRemoteCall(message.call, controller.signal)
 */
export async function runRemoteCall(
  call: RemoteCall,
  signal: AbortSignal,
  onProgress?: (progress: RemoteProgress) => void,
): Promise<RemoteResult> {
  const ctx = call.ctx
  const progress: ReplyProgress = { bytes: 0 }
  const ticker = onProgress
    ? setInterval(() => {
        if (progress.status === undefined || progress.headersAt === undefined) return
        const now = Date.now()
        onProgress({
          status: progress.status,
          bytes: progress.bytes,
          sinceMs: now - progress.headersAt,
          ...(progress.lastByteAt !== undefined ? { idleMs: now - progress.lastByteAt } : {}),
        })
      }, PROGRESS_EVERY_MS)
    : undefined
  ticker?.unref()
  try {
    const client = await clientFor(call.client)
    const maxReplyBytes = typeof call.maxReplyBytes === 'number' ? call.maxReplyBytes : undefined
    const completion = await client.chat.completions.create(call.body as never, {
      signal,
      maxRetries: 0,
      fetchOptions: { [REPLY_WATCH]: { limits: replyLimits(maxReplyBytes), progress } } as never,
    })
    return { ok: true, completion }
  } catch (err) {
    return { ok: false, error: judgeErrorToWire(classifyJudgeError(err, ctx)) }
  } finally {
    clearInterval(ticker)
  }
}

function clientFor(options: RemoteClientOptions): Promise<OpenAI> {
  const key = JSON.stringify([
    options.apiKey,
    options.baseURL ?? null,
    options.defaultHeaders ?? null,
    options.organization,
    options.project,
  ])
  let client = clients.get(key)
  if (!client) {
    // The worker's key and gateway headers are scrubbed from this process's output too.
    registerSecret(options.apiKey)
    registerHeaderSecrets(options.defaultHeaders)
    client = newOpenAIClient({
      apiKey: options.apiKey,
      // Resolved in the worker: this process's OPENAI_BASE_URL must not redirect it.
      baseURL: options.baseURL ?? 'https://api.openai.com/v1',
      organization: options.organization,
      project: options.project,
      ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    })
    client.catch(() => clients.delete(key))
    clients.set(key, client)
  }
  return client
}
