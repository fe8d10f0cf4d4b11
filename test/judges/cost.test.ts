import { describe, expect, it } from 'vitest'
import { costOf, normalizeModelId, priceOf } from '../../src/judges/cost'

describe('price table', () => {
  it.each([
    ['global.anthropic.claude-sonnet-4-6', 3, 15],
    ['us.anthropic.claude-sonnet-4-6', 3, 15],
    ['eu.anthropic.claude-sonnet-4-6-v1:0', 3, 15],
    ['anthropic.claude-sonnet-4-6', 3, 15],
    ['claude-sonnet-4-6', 3, 15],
    ['arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-6', 3, 15],
    ['gpt-4.1', 2, 8],
    ['gpt-4.1-2025-04-14', 2, 8],
    ['gpt-4.1-mini', 0.4, 1.6],
    ['gpt-4o', 2.5, 10],
    ['gpt-4o-2024-08-06', 2.5, 10],
    ['gpt-4o-mini', 0.15, 0.6],
    ['openai/o4-mini', 1.1, 4.4],
  ])('prices %s at $%s / $%s per 1M tokens', (model, input, output) => {
    expect(priceOf(model)).toEqual({ input, output })
  })

  it('never prices a sibling model by prefix (gpt-4.1-nano is not gpt-4.1)', () => {
    expect(priceOf('gpt-4.1-nano')).toBeNull()
    expect(normalizeModelId('gpt-4o-mini-2024-07-18')).toBe('gpt-4o-mini')
  })

  it('computes cost from usage, null for unknown models, and honours an override', () => {
    expect(costOf('gpt-4o-mini', { inputTokens: 2_000_000, outputTokens: 500_000 })).toBeCloseTo(0.3 + 0.3, 10)
    expect(costOf('global.anthropic.claude-sonnet-4-6', { inputTokens: 10_000, outputTokens: 1_000 })).toBeCloseTo(
      0.045,
      10,
    )
    expect(costOf('llama3.2-vision', { inputTokens: 10_000, outputTokens: 1_000 })).toBeNull()
    expect(
      costOf('llama3.2-vision', { inputTokens: 1_000_000, outputTokens: 1_000_000 }, { input: 0.1, output: 0.2 }),
    ).toBeCloseTo(0.3, 10)
    expect(costOf('gpt-4.1', { inputTokens: 1_000_000, outputTokens: 0 }, { input: 1, output: 1 })).toBe(1)
  })
})
