// Agent recordings in one process, through the real SDK clients against local servers: each SDK's call (plain and
// streamed) recorded once, then replayed with the servers stopped to the same answer; no planted key in the file.
import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { beginFileRecording, endFileRecording, endTestRecording } from '../../src/recording/recorder'
import { recordingPathFor } from '../../src/recording/store'
import { startAgentServers, type AgentServers } from '../support/agent-servers'
import { PLANTED, SDK_CALLS, weather } from '../support/sdk-agent'

const dir = mkdtempSync(join(tmpdir(), 'av-rec-'))
const testFile = join(dir, 'agent.eval.ts')
const current = new AsyncLocalStorage<{ test: string; attempt: string }>()
let servers: AgentServers
const saved = { ...process.env }

beforeAll(async () => {
  servers = await startAgentServers()
  process.env.MODEL_URL = servers.modelUrl
  process.env.MODEL_H2_URL = servers.modelH2Url
  process.env.TOOL_URL = servers.toolUrl
})
afterEach(() => {
  process.env.AGENT_VERDICT_MODE = saved.AGENT_VERDICT_MODE
  if (saved.AGENT_VERDICT_MODE === undefined) delete process.env.AGENT_VERDICT_MODE
})
afterAll(async () => {
  await servers?.close()
  rmSync(dir, { recursive: true, force: true })
})

async function runAll(): Promise<Record<string, string>> {
  const answers: Record<string, string> = {}
  for (const [name, call] of Object.entries(SDK_CALLS)) {
    answers[name] = await current.run({ test: name, attempt: '0' }, async () => {
      const reading = await weather('Oslo')
      const answer = await call(`Weather in Oslo is ${reading.celsius}`)
      const error = await endTestRecording(name, '0')
      if (error) throw error
      return `${reading.celsius} | ${answer}`
    })
  }
  return answers
}

describe('agent recordings through the real SDKs', () => {
  it('records every SDK call once, replays it with the servers stopped, and keeps no key', async () => {
    process.env.AGENT_VERDICT_MODE = 'record'
    beginFileRecording(testFile, {}, () => current.getStore(), { update: false })
    const recorded = await runAll()
    await endFileRecording({ complete: true })
    const servedWhileRecording = servers.requests()
    expect(servedWhileRecording).toBe(Object.keys(SDK_CALLS).length * 2)

    await servers.close()
    process.env.AGENT_VERDICT_MODE = 'replay'
    beginFileRecording(testFile, {}, () => current.getStore(), { update: false })
    const replayed = await runAll()
    await endFileRecording({ complete: true })
    expect(replayed).toEqual(recorded)
    for (const answer of Object.values(replayed)) expect(answer).not.toMatch(/MISMATCH/)
    expect(servers.requests()).toBe(servedWhileRecording)

    const text = readFileSync(recordingPathFor(testFile), 'utf8')
    if (process.env.KEEP_REC) writeFileSync(process.env.KEEP_REC, text)
    for (const key of [...Object.values(PLANTED), ...servers.seenKeys()]) expect(text).not.toContain(key)
    expect(text).not.toContain('s3cr3t-cookie-value')
  }, 60_000)
})
