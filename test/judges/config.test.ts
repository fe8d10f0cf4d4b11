// Judge configuration: AGENT_VERDICT_JUDGE forms, defineJudge, resolveJudge; one env judge end to end.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { defineJudge, judgeFromEnv, parseJudgeSpec, resolveJudge } from '../../src/judges/config'
import { JudgeConfigError } from '../../src/judges/errors'
import { openaiJudge } from '../../src/judges/openai'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { likertRequest } from './helpers'

describe('parseJudgeSpec', () => {
  it.each([
    ['openai:gpt-4.1', { provider: 'openai', model: 'gpt-4.1' }],
    [
      'bedrock:global.anthropic.claude-sonnet-4-6',
      { provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-6' },
    ],
    ['bedrock', { provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-6' }],
    [
      'openai-compatible:http://127.0.0.1:11434/v1#llama3.2-vision',
      { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2-vision' },
    ],
  ])('%s', (spec, expected) => {
    expect(parseJudgeSpec(spec)).toEqual(expected)
  })

  it.each([
    ['openai', /openai needs a model/],
    ['openai-compatible:http://127.0.0.1:11434/v1', /needs "#MODEL"/],
    ['openai-compatible:localhost#llama', /http\(s\) base URL/],
    ['anthropic:claude', /unknown provider "anthropic"/],
  ])('rejects %s with the accepted forms', (spec, why) => {
    const err = (() => {
      try {
        parseJudgeSpec(spec)
      } catch (e) {
        return e as JudgeConfigError
      }
    })()
    expect(err).toBeInstanceOf(JudgeConfigError)
    expect(err!.message).toMatch(why)
    expect(err!.message).toContain('AGENT_VERDICT_JUDGE=openai:MODEL')
    expect(err!.message).toContain('AGENT_VERDICT_JUDGE=openai-compatible:BASE_URL#MODEL')
  })
})

describe('defineJudge', () => {
  it('builds each provider with its id', () => {
    expect(defineJudge({ provider: 'openai', model: 'gpt-4.1-mini' }).id).toBe('openai:gpt-4.1-mini')
    expect(defineJudge({ provider: 'bedrock' }).id).toBe('bedrock:global.anthropic.claude-sonnet-4-6')
    expect(
      defineJudge({ provider: 'openai-compatible', baseURL: 'http://127.0.0.1:1234/v1', model: 'qwen2.5-vl' }).id,
    ).toBe('openai-compatible:qwen2.5-vl')
  })

  it('rejects an invalid config with the path of the problem', () => {
    expect(() => defineJudge({ provider: 'openai', model: 'gpt-4.1', concurrency: 0 })).toThrow(/concurrency/)
    expect(() => defineJudge({ provider: 'openai-compatible', baseURL: 'not a url', model: 'm' } as never)).toThrow(
      JudgeConfigError,
    )
  })
})

describe('judgeFromEnv / resolveJudge', () => {
  let fake: FakeJudge
  beforeAll(async () => {
    fake = await startFakeJudge({ rules: [{ respond: { score: 3, reason: 'middling' } }] })
  })
  afterAll(() => fake.close())

  it('is undefined when AGENT_VERDICT_JUDGE is unset or blank', () => {
    expect(judgeFromEnv({})).toBeUndefined()
    expect(judgeFromEnv({ AGENT_VERDICT_JUDGE: '  ' })).toBeUndefined()
  })

  it('returns one shared instance per value, so its limiter is shared', () => {
    const env = { AGENT_VERDICT_JUDGE: 'openai:gpt-4.1' }
    expect(judgeFromEnv(env)).toBe(judgeFromEnv({ ...env }))
    expect(judgeFromEnv({ AGENT_VERDICT_JUDGE: 'openai:gpt-4o' })).not.toBe(judgeFromEnv(env))
  })

  it('an env-configured openai-compatible judge answers through the fake judge', async () => {
    fake.reset()
    const judge = resolveJudge(undefined, { AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge` })
    const res = await judge.evaluate(likertRequest())
    expect(res.output).toMatchObject({ reasoning: 'middling', score: 3 })
    expect(fake.calls).toHaveLength(1)
  })

  it('prefers the explicit judge and fails loudly when there is none', () => {
    const explicit = openaiJudge({ model: 'gpt-4.1' })
    expect(resolveJudge(explicit, { AGENT_VERDICT_JUDGE: 'bedrock' })).toBe(explicit)
    expect(() => resolveJudge(undefined, {})).toThrow(JudgeConfigError)
    expect(() => resolveJudge(undefined, {})).toThrow(
      /no judge configured: set AGENT_VERDICT_JUDGE or pass \{ judge \}/,
    )
    expect(() => resolveJudge(undefined, {})).not.toThrow(/replayed/)
  })

  it('in replay mode, says the judge is not called but must be named as when recording', () => {
    const note =
      /no judge configured: set AGENT_VERDICT_JUDGE or pass \{ judge \}\. CI is set, so recorded verdicts are replayed and the judge is not called, but they are looked up by judge: set AGENT_VERDICT_JUDGE to the value the cassettes were recorded with \(replaying needs no API key\)\./
    expect(() => resolveJudge(undefined, { CI: 'true' })).toThrow(note)
    expect(() => resolveJudge(undefined, { AGENT_VERDICT_MODE: 'replay' })).toThrow(
      /\. AGENT_VERDICT_MODE=replay, so recorded verdicts are replayed/,
    )
    // An explicit mode other than replay wins over CI, as in cassette/modes.ts.
    expect(() => resolveJudge(undefined, { CI: 'true', AGENT_VERDICT_MODE: 'auto' })).not.toThrow(/replayed/)
    expect(() => resolveJudge(undefined, { CI: 'false' })).not.toThrow(/replayed/)
  })

  it('replaying needs no API key: an openai judge from the env replays a cassette with OPENAI_API_KEY unset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-replay-key-'))
    const file = join(dir, 'a.test.ts.json')
    const recorder = openaiJudge({
      model: 'gpt-4.1-mini',
      client: new OpenAI({ apiKey: 'test', baseURL: fake.baseURL }),
    })
    await withCassette(recorder, { file, mode: 'record' }).evaluate(likertRequest())
    const calls = fake.calls.length
    vi.stubEnv('OPENAI_API_KEY', undefined)
    try {
      const replayer = withCassette(resolveJudge(undefined, { AGENT_VERDICT_JUDGE: 'openai:gpt-4.1-mini' }), {
        file,
        env: { CI: 'true' },
      })
      const reply = await replayer.evaluate(likertRequest())
      expect(reply).toMatchObject({ cached: true, output: { score: 3 } })
      expect(fake.calls).toHaveLength(calls)
    } finally {
      vi.unstubAllEnvs()
    }
  })
})
