// A scripted OpenAI-compatible model on 127.0.0.1 (chat completions): the n-th assistant turn of a run is the
// scenario's n-th scripted turn, whatever SDK sends the request. Non-streaming only; the agents are run without
// streaming.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Scenario, Turn } from './scenarios'

export interface ModelServer {
  url: string
  /** The scenario the next requests answer from. */
  use(scenario: Scenario): void
  close(): Promise<void>
}

interface ChatRequest {
  model?: string
  messages?: Array<{ role: string; content?: unknown }>
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function completion(scenario: Scenario, turn: Turn, n: number, model: string) {
  const param = (tool: string) =>
    tool === scenario.task.lookup.name ? scenario.task.lookup.param : scenario.task.decoy.param
  const toolCalls = turn.calls?.map((c, i) => ({
    id: `call_${n}_${i}`,
    type: 'function',
    function: { name: c.tool, arguments: JSON.stringify({ [param(c.tool)]: c.arg }) },
  }))
  const content = turn.text ?? null
  return {
    id: `chatcmpl-${scenario.id}-${n}`,
    object: 'chat.completion',
    created: 1_767_225_600 + n,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 120 + 40 * n, completion_tokens: 20, total_tokens: 140 + 40 * n },
  }
}

/**
 * Starts the scripted model on 127.0.0.1 (port 0).
 *
 * @example
 * const model = await startModelServer(); model.use(scenario); // baseURL: `${model.url}/v1`
 */
export async function startModelServer(): Promise<ModelServer> {
  let scenario: Scenario | undefined
  const server: Server = createServer(async (req, res) => {
    const text = await body(req)
    const send = (code: number, payload: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' })
      res.end(JSON.stringify(payload))
    }
    if (!scenario || !req.url?.endsWith('/chat/completions')) {
      send(404, { error: { message: `no route ${req.url}` } })
      return
    }
    const request = JSON.parse(text) as ChatRequest
    const n = (request.messages ?? []).filter((m) => m.role === 'assistant').length
    const turn = scenario.turns[Math.min(n, scenario.turns.length - 1)]
    if (turn.status) {
      send(turn.status.code, { error: { message: turn.status.message, type: 'requests', code: 'rate_limit_exceeded' } })
      return
    }
    send(200, completion(scenario, turn, n + 1, request.model ?? 'scripted-model'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    use: (s) => {
      scenario = s
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
