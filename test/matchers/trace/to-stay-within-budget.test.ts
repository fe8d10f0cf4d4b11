// toStayWithinBudget on real TRAIL traces and OTel SDK spans: per-budget lines, crossing span, unknown prices.
import '../../../matchers/vitest'
import { describe, expect, test } from 'vitest'
import { loadTrace } from '../../../src/trace/load'
import { GAIA_SUBAGENT, metaOf, otelRun, thrownBy } from './helpers'

describe('toStayWithinBudget on a TRAIL trace (9 o3-mini calls, 32,481 tokens, 77 s)', () => {
  test('pass within every budget; the verdict records it', async ({ task }) => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    expect(trace).toStayWithinBudget({ tokens: 32_481, llmCalls: 9, latencyMs: 80_000 })
    expect(metaOf(task).verdicts).toEqual([
      expect.objectContaining({ metric: 'budget', level: 'agent', outcome: 'pass', pass: true }),
    ])
  })

  test('fail: each exceeded budget with limit, actual and the span where the running total crossed', async ({
    task,
  }) => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    const error = thrownBy(() => expect(trace).toStayWithinBudget({ tokens: 20_000, llmCalls: 40, latencyMs: 1_000 }))
    expect(error.message).toMatchInlineSnapshot(`
      "expect(received).toStayWithinBudget(budget)

      The run exceeded 2 of 3 budgets (tokens, latencyMs):
        ✗ tokens: 32,481 tokens > limit 20,000 tokens — crossed at llm:LiteLLMModel.__call__ (id 8133aad4…, path main › … › ToolCallingAgent.run › Step 2 › LiteLLMModel.__call__), span 17/21
        ✗ latencyMs: 77,284 ms > limit 1,000 ms — crossed at llm:LiteLLMModel.__call__ (id 36f0c5ac…, path main › answer_single_question › CodeAgent.run › LiteLLMModel.__call__), span 6/21
        ✓ llmCalls: 9 LLM calls ≤ limit 40 LLM calls"
    `)
    expect(metaOf(task).verdicts[0]).toMatchObject({ metric: 'budget', outcome: 'fail', raw: 2 })
    expect(metaOf(task).verdicts[0].reason).toContain('tokens 32,481 tokens > limit 20,000')
  })

  test('.not passes when a budget is exceeded and fails, with .not wording, when none is', async () => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    expect(trace).not.toStayWithinBudget({ llmCalls: 8 })
    const error = thrownBy(() => expect(trace).not.toStayWithinBudget({ llmCalls: 9 }))
    expect(error.message).toBe(
      'expect(received).not.toStayWithinBudget(budget)\n\nExpected the run to exceed a budget, but it stayed within the budget:\n  ✓ llmCalls: 9 LLM calls ≤ limit 9 LLM calls',
    )
  })

  test('a cost budget on a model with no known price fails both ways, naming the model and the fix', async () => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    const plain = thrownBy(() => expect(trace).toStayWithinBudget({ costUsd: 1, llmCalls: 40 }))
    expect(plain.message).toBe(
      [
        'expect(received).toStayWithinBudget(budget)',
        '',
        'Budget costUsd: unknown — this fails',
        'Cause: cannot compute the cost: 9 of 9 LLM calls have no recorded cost and no known price (o3-mini) — pass prices: { "o3-mini": { input, output } } (USD per 1M tokens), or drop costUsd',
        '  ✓ llmCalls: 9 LLM calls ≤ limit 40 LLM calls',
      ].join('\n'),
    )
    expect(thrownBy(() => expect(trace).not.toStayWithinBudget({ costUsd: 1 })).message).toContain(
      'Budget costUsd: unknown — this fails under .not too',
    )
    // With prices given, the same budget is decided: 1.1/4.4 USD per 1M tokens.
    expect(trace).toStayWithinBudget({ costUsd: 1, prices: { 'o3-mini': { input: 1.1, output: 4.4 } } })
    expect(
      thrownBy(() =>
        expect(trace).toStayWithinBudget({ costUsd: 0.01, prices: { 'o3-mini': { input: 1.1, output: 4.4 } } }),
      ).message,
    ).toMatch(/✗ costUsd: \$0\.0\d+ > limit \$0\.01 — crossed at llm:LiteLLMModel/)
  })
})

describe('toStayWithinBudget on OTel SDK spans (2 gpt-4o-mini calls, 946 tokens)', () => {
  test('cost from the built-in price table of the span model; the crossing span is named', () => {
    const run = otelRun(429)
    expect(run.exporter).toStayWithinBudget({ costUsd: 0.001, tokens: 1_000, llmCalls: 2 })
    const error = thrownBy(() => expect(run.spans()).toStayWithinBudget({ costUsd: 0.0001, tokens: 500 }))
    expect(error.message).toMatch(
      /^expect\(received\)\.toStayWithinBudget\(budget\)\n\nThe run exceeded 2 of 2 budgets \(tokens, costUsd\):\n/,
    )
    expect(error.message).toMatch(
      /✗ tokens: 946 tokens > limit 500 tokens — crossed at llm:chat gpt-4o-mini \(id 5a[0-9a-f]{6}…, path invoke_agent support › chat gpt-4o-mini\), span 4\/4/,
    )
    expect(error.message).toContain('✗ costUsd: $0.0002 > limit $0.0001')
  })

  test('a budget given nowhere, or an unknown key, is a usage error', () => {
    const run = otelRun()
    expect(thrownBy(() => expect(run.exporter).toStayWithinBudget({})).message).toContain(
      'invalid budget: give at least one budget: tokens, llmCalls, latencyMs or costUsd',
    )
    expect(thrownBy(() => expect(run.exporter).toStayWithinBudget({ token: 5 } as never)).message).toContain(
      'invalid budget: Unrecognized key: "token"',
    )
    expect(thrownBy(() => expect(run.exporter).toStayWithinBudget({ tokens: -1 })).message).toMatch(
      /invalid budget: tokens: .*(>0|positive)/i,
    )
  })
})
