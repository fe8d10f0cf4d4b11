// msw handlers standing in for the OpenAI API: chat completions (live calls, counted) and the Batch API
// (files upload/content, batches create/retrieve), all answered by one scripted judge so a live record
// and a batch record can be compared. Used by test/judges/batch and bench/batch-record.
import { createHash } from 'node:crypto'
import { http, HttpResponse } from 'msw'

/** What the scripted judge says to a chat-completions body: the reply text (a JSON verdict). */
export type Script = (body: any) => Reply | Promise<Reply>
/** A reply text, or a text with the usage the judge reported. */
export type Reply = string | { content: string; usage: { prompt_tokens: number; completion_tokens: number } }

/** A deterministic verdict from the user text: the same question always gets the same answer. */
export const scriptedVerdict = (body: any): string => {
  const user = body.messages?.find((m: any) => m.role === 'user')
  const text = (user?.content ?? []).map((p: any) => p.text ?? p.image_url?.url?.slice(0, 64) ?? '').join('|')
  const digest = createHash('sha256').update(text).digest()
  return JSON.stringify({ reasoning: `scripted ${digest.toString('hex').slice(0, 12)}`, score: 1 + (digest[0] % 5) })
}

export interface FakeBatchApi {
  handlers: ReturnType<typeof http.post>[]
  /** Chat completions answered live. */
  liveCalls: number
  /** Batch status polls answered. */
  polls: number
  /** custom_ids answered with an error line instead of a reply. */
  failIds: Set<string>
  /** custom_ids left out of the output (the batch expires before them). */
  expireIds: Set<string>
  /** Replies to replace for given custom_ids (e.g. a hostile or malformed text). */
  replyFor: Map<string, string>
  /** Polls in progress before the batch ends. */
  pollsBeforeDone: number
  /** The next status polls to answer with this HTTP status instead (a flaky or throttled API). */
  pollErrors: number[]
}

function chatCompletion(reply: Reply) {
  const content = typeof reply === 'string' ? reply : reply.content
  const usage = typeof reply === 'string' ? { prompt_tokens: 100 + content.length, completion_tokens: 20 } : reply.usage
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4.1',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, refusal: null } }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  }
}

/**
 * The fake API at `base` (e.g. `https://api.openai.test/v1`).
 *
 * @example
 * const api = fakeOpenAIBatchApi('https://api.openai.test/v1'); const server = setupServer(...api.handlers)
 */
export function fakeOpenAIBatchApi(base: string, script: Script = scriptedVerdict): FakeBatchApi {
  const files = new Map<string, string>()
  const batches = new Map<
    string,
    {
      inputFileId: string
      polls: number
      outputFileId?: string
      errorFileId?: string
      status: string
      total: number
      done: number
      failed: number
    }
  >()
  let ids = 0
  const api: FakeBatchApi = {
    handlers: [],
    liveCalls: 0,
    polls: 0,
    failIds: new Set(),
    expireIds: new Set(),
    replyFor: new Map(),
    pollsBeforeDone: 1,
    pollErrors: [],
  }

  const finish = async (batch: NonNullable<ReturnType<typeof batches.get>>) => {
    const lines = files
      .get(batch.inputFileId)!
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l))
    const out: string[] = []
    const err: string[] = []
    for (const line of lines) {
      const id = line.custom_id
      if (api.expireIds.has(id)) continue
      if (api.failIds.has(id)) {
        err.push(
          JSON.stringify({
            id: `req_${id.slice(0, 6)}`,
            custom_id: id,
            response: { status_code: 500, request_id: 'r', body: { error: { message: 'The server had an error' } } },
            error: null,
          }),
        )
        continue
      }
      const content = api.replyFor.get(id) ?? (await script(line.body))
      out.push(
        JSON.stringify({
          id: `req_${id.slice(0, 6)}`,
          custom_id: id,
          response: { status_code: 200, request_id: 'r', body: chatCompletion(content) },
          error: null,
        }),
      )
    }
    batch.outputFileId = `file-out-${++ids}`
    files.set(batch.outputFileId, out.join('\n'))
    if (err.length) {
      batch.errorFileId = `file-err-${++ids}`
      files.set(batch.errorFileId, err.join('\n'))
    }
    batch.status = api.expireIds.size > 0 ? 'expired' : 'completed'
    batch.done = out.length + err.length
    batch.failed = err.length
  }

  const view = (id: string, b: NonNullable<ReturnType<typeof batches.get>>) => ({
    id,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    input_file_id: b.inputFileId,
    completion_window: '24h',
    status: b.status,
    created_at: 1,
    output_file_id: b.outputFileId ?? null,
    error_file_id: b.errorFileId ?? null,
    request_counts: { total: b.total, completed: b.done - b.failed, failed: b.failed },
  })

  api.handlers = [
    http.post(`${base}/chat/completions`, async ({ request }) => {
      api.liveCalls++
      return HttpResponse.json(chatCompletion(await script(await request.json())))
    }),
    http.post(`${base}/files`, async ({ request }) => {
      const form = await request.formData()
      const file = form.get('file') as File
      if (form.get('purpose') !== 'batch')
        return HttpResponse.json({ error: { message: 'purpose must be batch' } }, { status: 400 })
      const id = `file-in-${++ids}`
      files.set(id, await file.text())
      return HttpResponse.json({
        id,
        object: 'file',
        bytes: file.size,
        created_at: 1,
        filename: file.name,
        purpose: 'batch',
        status: 'processed',
      })
    }),
    http.post(`${base}/batches`, async ({ request }) => {
      const body = (await request.json()) as { input_file_id: string; endpoint: string }
      if (!files.has(body.input_file_id) || body.endpoint !== '/v1/chat/completions')
        return HttpResponse.json({ error: { message: 'bad batch' } }, { status: 400 })
      const total = files
        .get(body.input_file_id)!
        .split('\n')
        .filter((l) => l.trim()).length
      const id = `batch_${++ids}`
      batches.set(id, { inputFileId: body.input_file_id, polls: 0, status: 'validating', total, done: 0, failed: 0 })
      return HttpResponse.json(view(id, batches.get(id)!))
    }),
    http.get(`${base}/batches/:id`, async ({ params }) => {
      const id = String(params.id)
      const batch = batches.get(id)
      if (!batch) return HttpResponse.json({ error: { message: 'no such batch' } }, { status: 404 })
      const injected = api.pollErrors.shift()
      if (injected !== undefined)
        return HttpResponse.json({ error: { message: `injected ${injected}` } }, { status: injected })
      api.polls++
      batch.polls++
      if (batch.polls > api.pollsBeforeDone) {
        if (!batch.outputFileId) await finish(batch)
      } else {
        batch.status = 'in_progress'
        batch.done = Math.floor((batch.total * batch.polls) / (api.pollsBeforeDone + 1))
      }
      return HttpResponse.json(view(id, batch))
    }),
    http.get(`${base}/files/:id/content`, ({ params }) => {
      const text = files.get(String(params.id))
      if (text === undefined) return HttpResponse.json({ error: { message: 'no such file' } }, { status: 404 })
      return new HttpResponse(text, { headers: { 'content-type': 'application/octet-stream' } })
    }),
  ] as FakeBatchApi['handlers']
  return api
}
