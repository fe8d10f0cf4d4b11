// A small agent as users write them, one function per SDK, each calling the model server of agent-servers.ts through
// the real client (plain and streamed; Bedrock's client built the default way, on HTTP/2) and the tool API with fetch. Shared by the in-process recording tests and the
// e2e user project (copied into it). Keys are planted: none may reach a recording.
import Anthropic from '@anthropic-ai/sdk'
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { generateText, streamText } from 'ai'
import OpenAI from 'openai'

export const PLANTED = {
  openai: 'sk-planted-openai-key-0123456789abcdef',
  anthropic: 'sk-ant-planted-anthropic-key-0123456789',
  aiSdk: 'sk-planted-aisdk-key-9876543210fedcba',
  awsAccessKeyId: 'AKIAPLANTEDKEY0123456',
  awsSecretAccessKey: 'planted/aws/secret/key/0123456789abcdefghij',
  awsSessionToken: 'planted-aws-session-token-0123456789abcdefghij',
  toolToken: 'tool-planted-token-0123456789',
}

const env = (name: string) => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}
const system = () => process.env.AGENT_SYSTEM_PROMPT ?? 'You are a terse weather agent. Answer in one sentence.'

const openai = () => new OpenAI({ apiKey: PLANTED.openai, baseURL: `${env('MODEL_URL')}/v1`, maxRetries: 0 })

export async function openaiChat(prompt: string): Promise<string> {
  const c = await openai().chat.completions.create({
    model: 'gpt-4.1-mini',
    messages: [
      { role: 'system', content: system() },
      { role: 'user', content: prompt },
    ],
  })
  return c.choices[0].message.content ?? ''
}

export async function openaiChatStream(prompt: string): Promise<string> {
  const stream = await openai().chat.completions.create({
    model: 'gpt-4.1-mini',
    stream: true,
    messages: [
      { role: 'system', content: system() },
      { role: 'user', content: prompt },
    ],
  })
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
  return text
}

export async function openaiResponses(prompt: string): Promise<string> {
  const r = await openai().responses.create({ model: 'gpt-4.1-mini', instructions: system(), input: prompt })
  return r.output_text
}

export async function openaiResponsesStream(prompt: string): Promise<string> {
  const stream = openai().responses.stream({ model: 'gpt-4.1-mini', instructions: system(), input: prompt })
  let text = ''
  for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta
  const final = await stream.finalResponse()
  return final.output_text === text ? text : `MISMATCH ${text} / ${final.output_text}`
}

const anthropic = () => new Anthropic({ apiKey: PLANTED.anthropic, baseURL: env('MODEL_URL'), maxRetries: 0 })

export async function anthropicMessage(prompt: string): Promise<string> {
  const m = await anthropic().messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 200,
    system: system(),
    messages: [{ role: 'user', content: prompt }],
  })
  return m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
}

export async function anthropicStream(prompt: string): Promise<string> {
  const stream = anthropic().messages.stream({
    model: 'claude-sonnet-4-5',
    max_tokens: 200,
    system: system(),
    messages: [{ role: 'user', content: prompt }],
  })
  let text = ''
  stream.on('text', (t) => {
    text += t
  })
  const final = await stream.finalMessage()
  const whole = final.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  return whole === text ? text : `MISMATCH ${text} / ${whole}`
}

const credentials = {
  accessKeyId: PLANTED.awsAccessKeyId,
  secretAccessKey: PLANTED.awsSecretAccessKey,
  sessionToken: PLANTED.awsSessionToken,
}

/** Built the default way: the SDK's NodeHttp2Handler, so its calls are HTTP/2 (to the h2c model server). */
const bedrock = () =>
  new BedrockRuntimeClient({ region: 'us-east-1', endpoint: env('MODEL_H2_URL'), credentials, maxAttempts: 1 })

/** The same client on the HTTP/1.1 handler, as users who pick it get. */
const bedrockHttp1 = () =>
  new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: env('MODEL_URL'),
    credentials,
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  })

const converseInput = (prompt: string) => ({
  modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
  system: [{ text: system() }],
  messages: [{ role: 'user' as const, content: [{ text: prompt }] }],
})

export async function bedrockConverse(prompt: string): Promise<string> {
  const out = await bedrock().send(new ConverseCommand(converseInput(prompt)))
  return (out.output?.message?.content ?? []).map((c) => c.text ?? '').join('')
}

async function converseStream(client: BedrockRuntimeClient, prompt: string): Promise<string> {
  const out = await client.send(new ConverseStreamCommand(converseInput(prompt)))
  let text = ''
  for await (const event of out.stream ?? []) text += event.contentBlockDelta?.delta?.text ?? ''
  return text
}

export const bedrockConverseStream = (prompt: string) => converseStream(bedrock(), prompt)
export const bedrockConverseStreamHttp1 = (prompt: string) => converseStream(bedrockHttp1(), prompt)

const aiModel = () =>
  createOpenAICompatible({ name: 'local', baseURL: `${env('MODEL_URL')}/v1`, apiKey: PLANTED.aiSdk })('gpt-4.1-mini')

export async function aiSdkText(prompt: string): Promise<string> {
  const { text } = await generateText({ model: aiModel(), system: system(), prompt, maxRetries: 0 })
  return text
}

export async function aiSdkStream(prompt: string): Promise<string> {
  const result = streamText({ model: aiModel(), system: system(), prompt, maxRetries: 0 })
  let text = ''
  for await (const part of result.textStream) text += part
  return text
}

/** The tool API: a random reading each call, with a key in the query and a token header. */
export async function weather(city: string): Promise<{ city: string; celsius: number }> {
  const res = await fetch(`${env('TOOL_URL')}/weather?city=${encodeURIComponent(city)}&api_key=${PLANTED.toolToken}`, {
    headers: { 'x-tool-token': PLANTED.toolToken },
  })
  return (await res.json()) as { city: string; celsius: number }
}

/** Every SDK path once: what each e2e and integration test drives. */
export const SDK_CALLS = {
  'openai chat': openaiChat,
  'openai chat stream': openaiChatStream,
  'openai responses': openaiResponses,
  'openai responses stream': openaiResponsesStream,
  'anthropic messages': anthropicMessage,
  'anthropic stream': anthropicStream,
  'bedrock converse': bedrockConverse,
  'bedrock converse stream': bedrockConverseStream,
  'bedrock converse stream http/1.1': bedrockConverseStreamHttp1,
  'ai sdk generateText': aiSdkText,
  'ai sdk streamText': aiSdkStream,
} as const
