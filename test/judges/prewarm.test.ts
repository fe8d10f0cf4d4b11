import { describe, expect, test } from 'vitest'
import { prewarmJudge } from '../../src/judges/prewarm'

describe('prewarmJudge', () => {
  test('loads the OpenAI SDK for openai and openai-compatible judges', async () => {
    expect(await prewarmJudge({ AGENT_VERDICT_JUDGE: 'openai-compatible:http://127.0.0.1:9/v1#m' })).toBe('openai')
    expect(await prewarmJudge({ AGENT_VERDICT_JUDGE: 'openai:gpt-4.1' })).toBe('openai')
  })

  test('loads the Bedrock client for a bedrock judge', async () => {
    expect(await prewarmJudge({ AGENT_VERDICT_JUDGE: 'bedrock' })).toBe('bedrock')
  })

  test('loads nothing when the run replays or no judge is set', async () => {
    expect(await prewarmJudge({ AGENT_VERDICT_JUDGE: 'openai:gpt-4.1', AGENT_VERDICT_MODE: 'replay' })).toBe('none')
    expect(await prewarmJudge({ AGENT_VERDICT_JUDGE: 'openai:gpt-4.1', CI: 'true' })).toBe('none')
    expect(await prewarmJudge({})).toBe('none')
    expect(await prewarmJudge({ AGENT_VERDICT_JUDGE: '  ' })).toBe('none')
  })

  test('an update run in replay mode records misses, so it warms the client', async () => {
    expect(
      await prewarmJudge({
        AGENT_VERDICT_JUDGE: 'openai:gpt-4.1',
        AGENT_VERDICT_MODE: 'replay',
        AGENT_VERDICT_UPDATE: '1',
      }),
    ).toBe('openai')
  })

  test('an invalid setting is left for the first judge call to explain, never thrown here', async () => {
    expect(await prewarmJudge({ AGENT_VERDICT_JUDGE: 'openai' })).toBe('none')
    expect(await prewarmJudge({ AGENT_VERDICT_JUDGE: 'openai:gpt-4.1', AGENT_VERDICT_MODE: 'sometimes' })).toBe('none')
  })
})
