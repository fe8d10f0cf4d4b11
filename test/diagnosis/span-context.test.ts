import { describe, expect, test } from 'vitest'
import { canonicalView } from '../../src/diagnosis/canonical'
import { plainText } from '../../src/diagnosis/render'
import { spanPrompt } from '../../src/diagnosis/span-context'
import { SpanJudgementSchema } from '../../src/diagnosis/span-judgement'
import { compactSteps } from '../../src/diagnosis/steps'
import { estimateTokens, requestTokens } from '../../src/diagnosis/tokens'
import { SYSTEM } from '../../src/metrics/prompts/span-diagnosis'
import { loadTrace } from '../../src/trace/load'
import type { Span } from '../../src/trace/span'
import type { Trace } from '../../src/trace/trace'
import { FIXTURE_DIR, HAS_TRAIL, sharedTrailFiles, traceFiles } from '../helpers/trail'
import { handmadeTrace } from './helpers'

const BUDGETS = [4_000, 8_000, 16_000, 32_000]

function prompt(trace: Trace, span: Span, budgetTokens: number) {
  return spanPrompt(trace, span, {
    system: SYSTEM,
    schema: SpanJudgementSchema,
    budgetTokens,
    steps: compactSteps(trace),
    contextSteps: 4,
  })
}

/** The LLM span with the longest input of the given traces. */
async function largestLlmSpan(files: string[]): Promise<{ trace: Trace; span: Span; chars: number }> {
  let best: { trace: Trace; span: Span; chars: number } | undefined
  for (const file of files) {
    const trace = await loadTrace(file)
    for (const span of trace.spansByKind('llm')) {
      const chars = plainText(span.input).length
      if (!best || chars > best.chars) best = { trace, span, chars }
    }
  }
  return best!
}

describe('span prompts stay within the per-call budget', () => {
  test('on the largest LLM span of the repo fixtures, at every budget', async () => {
    const { trace, span, chars } = await largestLlmSpan(traceFiles(FIXTURE_DIR))
    expect(chars).toBeGreaterThan(4 * 4_000)
    for (const budget of BUDGETS) {
      const p = prompt(trace, span, budget)
      expect(p.tokens).toBeLessThanOrEqual(budget)
      expect(p.tokens).toBe(requestTokens(SYSTEM, p.text, SpanJudgementSchema))
      // The span's place, never its id: ids are random per capture and would change the cassette key.
      expect(p.text).toContain(`position: ${canonicalView(trace).position(span.id)}`)
      expect(p.text).not.toContain(span.id)
    }
  })

  test.skipIf(!HAS_TRAIL)('on the largest LLM span of the shared TRAIL traces (~180k chars of input)', async () => {
    const { trace, span, chars } = await largestLlmSpan(sharedTrailFiles())
    expect(chars).toBeGreaterThan(100_000)
    for (const budget of BUDGETS) expect(prompt(trace, span, budget).tokens).toBeLessThanOrEqual(budget)
  })

  test('on a synthetic 2M-char span whose conversation, output, task and step result are all huge', () => {
    const huge = (tag: string) => `${tag}-START ${'lorem ipsum '.repeat(170_000)} ${tag}-END`
    const trace = handmadeTrace([
      { id: 'agent', kind: 'agent', name: 'CodeAgent.run', input: { task: huge('TASK') } },
      {
        id: 'step',
        parent: 'agent',
        kind: 'chain',
        name: 'Step 1',
        output: huge('OBSERVATION'),
        status: 'error',
        statusMessage: huge('ERROR'),
      },
      {
        id: 'llm',
        parent: 'step',
        kind: 'llm',
        name: 'LiteLLMModel.__call__',
        input: [
          { role: 'system', content: huge('SYSTEM') },
          ...Array.from({ length: 50 }, (_, i) => ({ role: 'user', content: `turn ${i} ${'q'.repeat(40_000)}` })),
        ],
        output: [{ role: 'assistant', content: huge('ANSWER') }],
      },
    ])
    const span = trace.get('llm')!
    expect(plainText(span.input).length).toBeGreaterThan(2_000_000)
    for (const budget of BUDGETS) {
      const p = prompt(trace, span, budget)
      expect(p.tokens).toBeLessThanOrEqual(budget)
      // Every part survives the cut with its head.
      for (const head of ['TASK-START', 'OBSERVATION-START', 'SYSTEM-START', 'ANSWER-START'])
        expect(p.text).toContain(head)
      expect(p.text).toMatch(/\[… \d+ messages \(\d+ chars, ~\d+ tokens\) elided …\]/)
    }
  })
})

describe('span prompt content', () => {
  test('holds the task, the path, the step result, previous steps and the span uncut when small', async () => {
    const trace = await loadTrace(`${FIXTURE_DIR}/41bbc898aa7de0f31d2382ff57700a76.json`)
    const tool = trace.get('610df94b266f9115')! // TextInspectorTool that failed on an .mp3
    const p = prompt(trace, tool, 16_000)
    expect(p.text).toContain('<task>\nYou have one question to answer.')
    expect(p.text).toContain(
      'path: main › answer_single_question › CodeAgent.run › Step 1 › ToolCallingAgent.run › Step 1 › TextInspectorTool',
    )
    expect(p.text).toContain("agent: search_agent — its task: You're a helpful agent named 'search_agent'")
    expect(p.text).toMatch(/<previous_steps>\n.*\[search_agent\] plan: 1\. Use the inspect_file_as_text tool/s)
    expect(p.text).toContain('tool: inspect_file_as_text')
    expect(p.text).toContain('error: FileConversionException')
    expect(p.text).toContain(`<span_input>\n${plainText(tool.input)}\n</span_input>`)
    expect(p.text).toContain('<span_output>\n(not recorded)\n</span_output>')
    expect(p.text).not.toContain('elided')
  })

  test('previous steps are the last N steps that ended before the span, oldest dropped', async () => {
    const trace = await loadTrace(`${FIXTURE_DIR}/72822db6e120878d916b515c2501246b.json`)
    const last = trace.spansByKind('llm').at(-1)!
    const steps = compactSteps(trace).filter((s) => s.endNs <= last.startNs && s.spanId !== last.id)
    const p = spanPrompt(trace, last, {
      system: SYSTEM,
      schema: SpanJudgementSchema,
      budgetTokens: 16_000,
      steps: compactSteps(trace),
      contextSteps: 2,
    })
    const shown = /<previous_steps>\n([\s\S]*?)\n<\/previous_steps>/.exec(p.text)![1].split('\n')
    expect(shown).toHaveLength(2)
    expect(shown[1]).toContain(steps.at(-1)!.text.slice(0, 40))
    expect(estimateTokens(p.text)).toBeLessThan(16_000)
  })
})
