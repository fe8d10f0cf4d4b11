// Agent recordings as a new user gets them, under the real Vitest and Jest CLIs on a project importing the built
// package: an agent on the real SDKs (openai chat and responses, @anthropic-ai/sdk, Bedrock Converse and
// ConverseStream with SigV4 on the client's default HTTP/2 handler (and ConverseStream on HTTP/1.1), the Vercel AI SDK;
// plain and streamed) whose model answers differently on every call and
// whose tool API reads randomly. Record once with the fake judge; then CI=true with the model, the tool API and the
// judge all stopped passes; a changed system prompt fails in CI showing what changed; no planted key is on disk; a
// worker killed while recording loses nothing it had recorded.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseRecording } from '../../src/recording/format'
import { startFakeJudge, type FakeJudge } from '../../src/testing/index'
import { startAgentServers } from '../support/agent-servers'
import { PLANTED, SDK_CALLS } from '../support/sdk-agent'
import { makeProject, repo, run, usePackageUnderTest } from './user-project'

const SDK_DEPS = [
  'openai',
  '@anthropic-ai/sdk',
  '@aws-sdk/client-bedrock-runtime',
  '@smithy/node-http-handler',
  'ai',
  '@ai-sdk/openai-compatible',
]
const runners = [
  { runner: 'vitest', deps: ['vitest'], args: [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', 'weather'] },
  {
    runner: 'jest',
    deps: ['jest', '@swc/jest', '@jest/globals'],
    args: [join(repo, 'node_modules/jest/bin/jest.js'), '--cacheDirectory', '.jest-cache'],
  },
] as const
const TESTS = Object.keys(SDK_CALLS).length

const cleanup: string[] = []

const pkg = usePackageUnderTest()

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

function newProject(deps: readonly string[]): string {
  const project = makeProject('recordings', pkg.dir, [...deps, ...SDK_DEPS])
  cpSync(join(repo, 'test/support/sdk-agent.ts'), join(project, 'agent.ts'))
  cleanup.push(project)
  return project
}

/** Every file the runs wrote under the project's __recordings__ and __verdicts__, by relative path. */
function written(project: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const dir of ['__recordings__', '__verdicts__']) {
    const path = join(project, dir)
    if (!existsSync(path)) continue
    for (const name of readdirSync(path)) out[`${dir}/${name}`] = readFileSync(join(path, name), 'utf8')
  }
  return out
}

describe.each(runners)('agent recordings under $runner', ({ runner, deps, args }) => {
  it('records once, replays in CI with the model, tools and judge stopped, and shows what changed on a miss', async () => {
    const project = newProject(deps)
    const servers = await startAgentServers()
    const fake: FakeJudge = await startFakeJudge({ defaultVerdict: { verdict: 'pass', reason: 'One sentence.' } })
    const env = {
      MODEL_URL: servers.modelUrl,
      MODEL_H2_URL: servers.modelH2Url,
      TOOL_URL: servers.toolUrl,
      AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
    }
    // Under Vitest the agent first makes a third tool reading it later stops making, for `-u` to prune.
    const extra = runner === 'vitest' ? 1 : 0
    let keysSeen: string[]
    try {
      const recorded = await run(project, [...args], { ...env, ...(extra ? { EXTRA_READING: '1' } : {}) })
      expect(recorded.code, recorded.output).toBe(0)
      // Every test: two tool readings (three with the extra one) and one model call, all of them live.
      expect(servers.requests()).toBe(TESTS * (3 + extra))
      expect(fake.calls.length).toBe(TESTS)
      // The default Bedrock client spoke HTTP/2: Converse on a pooled session, ConverseStream on its own.
      expect(servers.h2Sessions()).toBeGreaterThanOrEqual(2)
      keysSeen = servers.seenKeys()
    } finally {
      await servers.close()
      await fake.close()
    }
    const file = runner === 'vitest' ? 'weather.eval.ts.json' : 'weather.jest.ts.json'
    const recording = parseRecording(readFileSync(join(project, '__recordings__', file), 'utf8'), file)
    // Attribution by test, not file: each concurrent test holds exactly its own three calls, in call order.
    expect(recording.tests.map((t) => t.test.replace(/^weather agent\s*[›>]?\s*/, '')).sort()).toEqual(
      Object.keys(SDK_CALLS).sort(),
    )
    const h2Port = new URL(servers.modelH2Url).port
    const overH2 = recording.tests.filter((t) => t.calls.some((c) => new URL(c.request.url).port === h2Port))
    expect(overH2.map((t) => t.test.replace(/^weather agent\s*[›>]?\s*/, '')).sort()).toEqual([
      'bedrock converse',
      'bedrock converse stream',
    ])
    for (const t of recording.tests) {
      expect(t.calls.map((c) => new URL(c.request.url).pathname)[0]).toBe('/weather')
      expect(t.calls[0].request.url).toContain('city=Oslo')
      expect(t.calls[2].request.url).toContain('city=Bergen')
      expect(t.calls[1].summary?.answer).toMatch(/^Answer \d+/)
    }

    // CI: nothing reachable (servers and judge closed), so a request would fail the test; all pass, all replayed.
    const ci = await run(project, [...args], { ...env, CI: 'true' })
    expect(ci.code, ci.output).toBe(0)

    if (extra) {
      // `-u` on a complete run keeps only the calls made again: the dropped reading goes, nothing else changes.
      const path = join(project, '__recordings__', file)
      expect(readFileSync(path, 'utf8')).toContain('city=Tromso')
      const updated = await run(project, [...args, '-u'], { ...env, CI: 'true' })
      expect(updated.code, updated.output).toBe(0)
      const pruned = parseRecording(readFileSync(path, 'utf8'), file)
      expect(JSON.stringify(pruned)).not.toContain('city=Tromso')
      expect(pruned.tests.map((t) => t.calls.length)).toEqual(recording.tests.map((t) => t.calls.length - 1))
      expect(pruned.tests.map((t) => t.calls.map((c) => c.request.url))).toEqual(
        recording.tests.map((t) => t.calls.slice(0, 3).map((c) => c.request.url)),
      )
    }

    // A changed system prompt is a miss in CI: the test, the request and the changed line are in the message.
    const changed = await run(project, [...args], {
      ...env,
      CI: 'true',
      AGENT_SYSTEM_PROMPT: 'You are a verbose weather agent. Answer in three paragraphs.',
    })
    expect(changed.code).not.toBe(0)
    expect(changed.output).toContain('agent recording: no recorded response for POST http://127.0.0.1:')
    expect(changed.output).toMatch(/in test "weather agent.{1,3}openai chat"/)
    expect(changed.output).toContain('+ body.json.messages[0].content: "You are a verbose weather agent.')
    expect(changed.output).toContain('- body.json.messages[0].content: "You are a terse weather agent.')
    expect(changed.output).toContain('AGENT_VERDICT_MODE=record')

    // Nothing secret on disk: no planted key, no header value the servers saw, no cookie.
    const files = written(project)
    expect(Object.keys(files).length).toBeGreaterThanOrEqual(2)
    for (const [name, text] of Object.entries(files)) {
      for (const key of [...Object.values(PLANTED), ...keysSeen])
        expect(text, `${name} holds ${key}`).not.toContain(key)
      expect(text).not.toContain('s3cr3t-cookie-value')
    }
  }, 240_000)
})

describe('agent recordings when the worker is killed mid-run', () => {
  it('keeps every call recorded before the kill, whole, and replays them on the next run', async () => {
    const project = newProject(['vitest'])
    const servers = await startAgentServers()
    try {
      const args = [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', 'killed']
      const env = { MODEL_URL: servers.modelUrl, TOOL_URL: servers.toolUrl, AGENT_VERDICT_MODE: 'auto' }
      const killed = await run(project, args, { ...env, KILL_AFTER: '20' })
      expect(killed.code).not.toBe(0)
      const path = join(project, '__recordings__', 'killed.eval.ts.json')
      const kept = parseRecording(readFileSync(path, 'utf8'), path)
      const keptCalls = kept.tests.reduce((n, t) => n + t.calls.length, 0)
      expect(keptCalls).toBeGreaterThanOrEqual(20)
      const before = servers.requests()

      const again = await run(project, args, env)
      expect(again.code, again.output).toBe(0)
      // Only the calls the kill left unrecorded go out again.
      expect(servers.requests() - before).toBe(7 * 8 - keptCalls)
      expect(readdirSync(join(project, '__recordings__')).filter((f) => f.endsWith('.tmp'))).toEqual([])
    } finally {
      await servers.close()
    }
  }, 240_000)
})
