// toHaveNoFailingSpans: real TRAIL traces and OTel SDK spans, judged by the fake judge through the real openai client.
import '../../../matchers/vitest'
import { describe, expect, test, vi } from 'vitest'
import { JudgeConfigError } from '../../../src/judges/errors'
import { detect } from '../../../src/metrics/detectors/index'
import type { Trace } from '../../../src/trace/trace'
import { loadTrace } from '../../../src/trace/load'
import { textOf, useJudgeHarness } from '../../support/recording-judge'
import { GAIA_CLEAN, GAIA_FORMAT, metaOf, otelRun, rejectionOf } from './helpers'

/** In GAIA_CLEAN: the last LLM call ("FINAL ANSWER: right") and the FinalAnswerTool call. */
const FINAL_LLM = '05168be1bb804a8d'
const FINAL_TOOL = 'ecc4e15abed97adb'
/** … and how their judge prompts name them: by position (span ids are random per capture, so prompts never hold them). */
const FINAL_LLM_AT = 'position: 1.2.3\n'
const FINAL_TOOL_AT = 'position: 1.2.2.3.2\n'
/** Detector findings are not this matcher's business (they improve over time): only Rate Limiting propagates, and GAIA has none. */
const RATE_LIMITS_ONLY = { type: 'category' as const, categories: ['Rate Limiting' as const] }
const failFinal = {
  name: 'final-format',
  when: { contains: FINAL_LLM_AT },
  respond: {
    verdict: 'fail' as const,
    reason: 'the final answer drops the required format',
    fields: {
      error_category: 'Formatting Errors',
      instruction_following: { score: 2, reason: 'answers without the template the task asked for' },
      evidence: 'FINAL ANSWER: right',
    },
  },
}
const unjudgeableTool = { type: 'malformed-json' as const, when: { contains: FINAL_TOOL_AT } }

/** What the detectors say about a trace, so expectations follow them instead of pinning their output. */
function detectorView(trace: Trace) {
  const flagged = new Set(detect(trace).map((f) => f.spanId))
  const leaves = trace.spans.filter((s) => s.kind === 'llm' || s.kind === 'tool')
  const judged = leaves.filter((s) => !flagged.has(s.id))
  return { flagged, judged, judgedOrFlagged: new Set([...judged.map((s) => s.id), ...flagged]).size }
}

const h = useJudgeHarness()

describe('toHaveNoFailingSpans on a real TRAIL trace', () => {
  test('pass: one call per LLM/tool leaf no detector explains; every span verdict and the span tree go to the test meta', async ({
    task,
  }) => {
    const trace = await loadTrace(GAIA_CLEAN)
    const { judged, flagged } = detectorView(trace)
    await expect(trace).toHaveNoFailingSpans({ judge: h.judge, policy: RATE_LIMITS_ONLY })
    expect(h.fake.calls).toHaveLength(judged.length)
    const meta = metaOf(task)
    expect(meta.traces).toHaveLength(1)
    expect(meta.traces![0].id).toBe(trace.traceId)
    expect(meta.traces![0].spans.map((s) => [s.id, s.parentId, s.name, s.kind])).toEqual(
      trace.spans.map((s) => [s.id, s.parentId, s.name, s.kind]),
    )
    // Four verdicts per judged span (three aspects and the category), each linked from its span; detector verdicts on flagged spans.
    const judgeVerdicts = meta.verdicts.filter((v) => !v.metric.startsWith('detector:'))
    expect(judgeVerdicts).toHaveLength(judged.length * 4)
    expect(new Set(meta.verdicts.filter((v) => v.metric.startsWith('detector:')).map((v) => v.spanId))).toEqual(flagged)
    const linked = new Set(meta.traces![0].spans.flatMap((s) => s.verdictIds))
    expect(meta.verdicts.every((v) => v.level === 'span' && linked.has(v.id!))).toBe(true)
    expect(judgeVerdicts.every((v) => v.outcome === 'pass')).toBe(true)
  })

  test('fail: the count leads, then one line per failing leaf — where, category, metric and score, reason', async ({
    task,
  }) => {
    h.fake.setRules([failFinal])
    const trace = await loadTrace(GAIA_CLEAN)
    const { flagged, judgedOrFlagged } = detectorView(trace)
    const error = await rejectionOf(expect(trace).toHaveNoFailingSpans({ judge: h.judge }))
    const lines = error.message.split('\n')
    expect(lines.slice(0, 3)).toEqual([
      'expect(received).toHaveNoFailingSpans(options)',
      '',
      `${flagged.size + 1} of ${judgedOrFlagged} judged spans failed (policy existential):`,
    ])
    expect(lines).toContain(
      '  ✗ llm:LiteLLMModel.__call__ (id 05168be1…, path main › answer_single_question › LiteLLMModel.__call__) — Formatting Errors (reasoning integrity 1/5): the final answer drops the required format',
    )
    for (const id of flagged)
      expect(lines.some((l) => l.startsWith('  ✗ ') && l.includes(`(id ${id.slice(0, 8)}…`))).toBe(true)
    expect(lines.at(-1)).toMatch(
      /^Judge: openai-compatible:fake-judge · \d+ calls · max prompt [\d,]+ of 16,000 tokens$/,
    )
    // No actual/expected: the runner would print a diff `Expected: "pass" Received: "fail"` under the message, saying nothing new.
    expect(error).not.toHaveProperty('actual', expect.anything())
    expect(error).not.toHaveProperty('expected', expect.anything())

    const tree = metaOf(task).traces![0].spans
    const leaf = tree.find((s) => s.id === FINAL_LLM)!
    // The leaf fails, and so does every ancestor under the existential policy.
    expect(leaf.failed).toBe(true)
    expect(trace.ancestors(FINAL_LLM).every((a) => tree.find((s) => s.id === a.id)!.failed)).toBe(true)
    expect(
      metaOf(task)
        .verdicts.filter((v) => leaf.verdictIds.includes(v.id!))
        .map((v) => [v.metric, v.outcome]),
    ).toEqual([
      ['span.instruction_following', 'fail'],
      ['span.reasoning_integrity', 'fail'],
      ['span.tool_completeness', 'fail'],
      ['span.error_category', 'fail'],
    ])
  })

  test('.not passes on a failing trace and fails on a passing one with .not wording', async () => {
    h.fake.setRules([failFinal])
    const trace = await loadTrace(GAIA_CLEAN)
    await expect(trace).not.toHaveNoFailingSpans({ judge: h.judge })
    h.fake.setRules([])
    const error = await rejectionOf(
      expect(trace).not.toHaveNoFailingSpans({ judge: h.judge, policy: RATE_LIMITS_ONLY }),
    )
    expect(error.message).toMatch(
      /^expect\(received\)\.not\.toHaveNoFailingSpans\(options\)\n\nExpected some span to fail, but no span failed the trace \(\d+ judged spans, policy category: Rate Limiting\)\.\n/,
    )
  })

  test('unjudgeable: a judge fault on one span fails the assertion (under .not too) naming the span and cause, unless allowed', async ({
    task,
  }) => {
    h.fake.setFaults([unjudgeableTool])
    const trace = await loadTrace(GAIA_CLEAN)
    const { judged } = detectorView(trace)
    const plain = await rejectionOf(expect(trace).toHaveNoFailingSpans({ judge: h.judge, policy: RATE_LIMITS_ONLY }))
    expect(plain.message).toMatch(
      /^expect\(received\)\.toHaveNoFailingSpans\(options\)\n\nUnjudgeable: the trace has no verdict for every span it wanted one for, so this fails — pass \{ allowUnjudgeable: true \} to accept that\.\n/,
    )
    expect(plain.message).toMatch(
      /\n1 span unjudgeable:\n {2}\? tool:FinalAnswerTool \(id ecc4e15a…, path main › answer_single_question › CodeAgent\.run › Step 1 › FinalAnswerTool\) — unjudgeable: .*not JSON/,
    )
    const negated = await rejectionOf(
      expect(trace).not.toHaveNoFailingSpans({ judge: h.judge, policy: RATE_LIMITS_ONLY }),
    )
    expect(negated.message).toContain('so this fails under .not too')
    await expect(trace).toHaveNoFailingSpans({ judge: h.judge, policy: RATE_LIMITS_ONLY, allowUnjudgeable: true })
    // The other spans were judged all the same.
    const last = metaOf(task)
      .verdicts.filter((v) => !v.metric.startsWith('detector:'))
      .slice(-judged.length * 4)
    expect(last.filter((v) => v.outcome === 'unjudgeable').map((v) => v.spanId)).toEqual(Array(4).fill(FINAL_TOOL))
    expect(last.filter((v) => v.outcome === 'pass')).toHaveLength((judged.length - 1) * 4)
  })

  test('policy, select and budgetTokens reach the diagnosis', async () => {
    h.fake.setRules([failFinal])
    const trace = await loadTrace(GAIA_CLEAN)
    // Only Rate Limiting propagates: the Formatting Errors leaf is listed but does not fail the trace.
    const error = await rejectionOf(
      expect(trace).not.toHaveNoFailingSpans({ judge: h.judge, policy: RATE_LIMITS_ONLY }),
    )
    expect(error.message).toMatch(/failing leaves? did not fail the trace under policy category: Rate Limiting:\n/)
    expect(error.message).toContain(
      '  · llm:LiteLLMModel.__call__ (id 05168be1…, path main › answer_single_question › LiteLLMModel.__call__) — Formatting Errors',
    )
    h.fake.reset()
    h.bodies.length = 0
    await expect(trace).toHaveNoFailingSpans({
      judge: h.judge,
      select: { kind: 'tool' },
      budgetTokens: 4_000,
      policy: RATE_LIMITS_ONLY,
    })
    expect(h.bodies).toHaveLength(1)
    expect(textOf(h.bodies[0])).toContain(FINAL_TOOL_AT)
    expect(h.fake.calls[0].usage!.prompt_tokens).toBeLessThanOrEqual(4_000)
  })

  test('a selection that matches nothing is no pass, nor a .not — even with a judge that would fail everything', async ({
    task,
  }) => {
    h.fake.setFaults([{ type: 'server-error', status: 500 }])
    const trace = await loadTrace(GAIA_CLEAN)
    const select = { name: 'no-such-span' }
    for (const assertion of [
      expect(trace).toHaveNoFailingSpans({ judge: h.judge, select, policy: RATE_LIMITS_ONLY }),
      expect(trace).not.toHaveNoFailingSpans({ judge: h.judge, select, policy: RATE_LIMITS_ONLY }),
    ]) {
      const error = await rejectionOf(assertion)
      expect(error.message).toMatch(
        /Nothing judged: the selection matched no span to judge among the trace's \d+ spans \(kinds: /,
      )
      expect(error.message).toContain('Widen `select`')
    }
    expect(h.fake.calls).toHaveLength(0)
    expect(metaOf(task).assertions?.map((a) => a.passed)).toEqual([false, false])
    // The detectors alone, asked for as such, are not a judgement that needs a span.
    await expect(trace).toHaveNoFailingSpans({
      judge: h.judge,
      select,
      metrics: ['detectors'],
      policy: RATE_LIMITS_ONLY,
    })
    h.fake.setFaults([])
  })

  test('metrics: only the listed span verdicts can fail a span (the same judge calls either way)', async ({ task }) => {
    h.fake.setRules([
      {
        name: 'weak-reasoning',
        when: { contains: FINAL_LLM_AT },
        respond: {
          reason: 'fine otherwise',
          fields: {
            reasoning_integrity: { score: 2, reason: 'asserts the answer without the reversal it claims to have done' },
          },
        },
      },
    ])
    const trace = await loadTrace(GAIA_CLEAN)
    // Detector findings and reasoning integrity left out: nothing else failed.
    await expect(trace).toHaveNoFailingSpans({
      judge: h.judge,
      metrics: ['span.instruction_following', 'span.tool_completeness', 'span.error_category'],
    })
    const error = await rejectionOf(
      expect(trace).toHaveNoFailingSpans({ judge: h.judge, metrics: ['span.reasoning_integrity'] }),
    )
    expect(error.message.split('\n').slice(2, 4)).toEqual([
      `1 of ${detectorView(trace).judged.length} judged spans failed (policy existential; metrics span.reasoning_integrity):`,
      '  ✗ llm:LiteLLMModel.__call__ (id 05168be1…, path main › answer_single_question › LiteLLMModel.__call__) — reasoning integrity 2/5: asserts the answer without the reversal it claims to have done',
    ])
    // The report holds only the verdicts that counted.
    const last = metaOf(task).traces!.at(-1)!
    const ids = new Set(last.spans.flatMap((s) => s.verdictIds))
    expect([...ids].every((id) => id.endsWith(':span.reasoning_integrity'))).toBe(true)
    expect(last.spans.find((s) => s.id === FINAL_LLM)!.failed).toBe(true)
    await expect(expect(trace).toHaveNoFailingSpans({ judge: h.judge, metrics: [] })).rejects.toThrow(
      /invalid options: metrics: .*\(allowed: \{ judge\?: Judge \| false, select\?, policy\?, metrics\?/,
    )
  })

  test('judge: false runs the detectors only and asks no judge', async () => {
    const trace = await loadTrace(GAIA_FORMAT)
    const { flagged } = detectorView(trace)
    const error = await rejectionOf(expect(GAIA_FORMAT).toHaveNoFailingSpans({ judge: false }))
    const lines = error.message.split('\n')
    expect(lines.slice(0, 3)).toEqual([
      'expect(received).toHaveNoFailingSpans(options)',
      '',
      `${flagged.size} of 13 spans checked by the deterministic detectors failed (policy existential):`,
    ])
    expect(lines).toContain(
      '  ✗ llm:LiteLLMModel.__call__ (id dc63c344…, path main › answer_single_question › CodeAgent.run › Step 1 › LiteLLMModel.__call__) — Formatting Errors (detector:error-status): the model output could not be parsed (code block or tool-call format broken); raised in CHAIN Step 1 (9179fadd…)',
    )
    expect(lines.at(-1)).toBe('Mode: deterministic — detectors only, no judge was asked (judge: false)')
    await expect(
      expect(GAIA_FORMAT).toHaveNoFailingSpans({ judge: false, metrics: ['span.reasoning_integrity'] }),
    ).rejects.toThrow(
      "metrics span.reasoning_integrity are judged, and { judge: false } asks no judge — add 'detectors' to metrics, or pass { judge }",
    )
    expect(h.fake.calls).toHaveLength(0)
  })

  test('with no judge configured it fails loudly naming AGENT_VERDICT_JUDGE and the judge: false way out', async () => {
    vi.stubEnv('AGENT_VERDICT_JUDGE', '')
    const error = await rejectionOf(expect(GAIA_CLEAN).toHaveNoFailingSpans())
    expect(error).toBeInstanceOf(JudgeConfigError)
    expect(error.message).toMatch(
      /^expect\(received\)\.toHaveNoFailingSpans\(\)\n\nno judge configured: set AGENT_VERDICT_JUDGE or pass \{ judge \}\./,
    )
    expect(error.message).toContain('AGENT_VERDICT_JUDGE=openai:MODEL')
    expect(error.message).toMatch(
      /To check the trace with the deterministic detectors only, pass \{ judge: false \}\.$/,
    )
  })
})

describe('toHaveNoFailingSpans on OTel SDK spans', () => {
  test('pass on a clean run read straight from the exporter', async () => {
    await expect(otelRun().exporter).toHaveNoFailingSpans({ judge: h.judge })
    expect(h.fake.calls).toHaveLength(3) // two chat spans and the tool span
  })

  test('fail: a detector leaf and a judge leaf, pinned; only unexplained spans go to the judge', async ({ task }) => {
    h.fake.setRules([
      {
        name: 'apology',
        when: { contains: 'could not look up your order' },
        respond: {
          reason: 'the tool failed and the answer apologises',
          fields: { tool_completeness: { score: 2, reason: 'gives up without offering a retry or a human hand-off' } },
        },
      },
    ])
    const run = otelRun(429)
    const error = await rejectionOf(expect(run.spans()).toHaveNoFailingSpans({ judge: h.judge }))
    // Span ids come from the SDK's seeded generator; the prompt size belongs to the diagnosis.
    expect(
      error.message.replace(/5a[0-9a-f]{6}…/g, '5a……').replace(/max prompt [\d,]+ of/, 'max prompt N of'),
    ).toMatchInlineSnapshot(`
      "expect(received).toHaveNoFailingSpans(options)

      2 of 3 judged spans failed (policy existential):
        ✗ tool:execute_tool lookup_order (id 5a……, path invoke_agent support › execute_tool lookup_order) — Rate Limiting (detector:error-status): the provider throttled the call (rate limit / HTTP 429)
        ✗ llm:chat gpt-4o-mini (id 5a……, path invoke_agent support › chat gpt-4o-mini) — tool completeness 2/5: gives up without offering a retry or a human hand-off
      Judge: openai-compatible:fake-judge · 2 calls · max prompt N of 16,000 tokens"
    `)
    expect(h.fake.calls).toHaveLength(2) // the tool span is explained by its detector
    expect(metaOf(task).traces![0].spans.map((s) => [s.kind, s.failed])).toEqual([
      ['agent', true],
      ['llm', false],
      ['tool', true],
      ['llm', true],
    ])
  })
})
