// toCallTool on real TRAIL traces and on spans from the OTel SDK's InMemorySpanExporter.
import '../../../matchers/vitest'
import { describe, expect, test } from 'vitest'
import { loadTrace } from '../../../src/trace/load'
import { GAIA_SUBAGENT, SWE_RUN, metaOf, otelRun, thrownBy } from './helpers'

describe('toCallTool on a TRAIL trace', () => {
  test('pass: by tool name or span name, with partial args (RegExp, asymmetric matcher) and times', async () => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    expect(trace).toCallTool('inspect_file_as_text')
    expect(trace).toCallTool('TextInspectorTool', { times: 1 })
    expect(trace).toCallTool('inspect_file_as_text', {
      args: { file_path: /\.mp3$/, question: expect.stringContaining('transcribe') },
    })
    expect(trace).toCallTool(/^final_/, { args: ['12,45,67'], times: 1 })
    expect(trace).toCallTool('web_search', { times: 0 })
  })

  test('a RegExp with the g flag, reused, matches every time (its lastIndex made the second use miss)', async () => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    const tool = /inspect_file/g
    expect(trace).toCallTool(tool)
    expect(trace).toCallTool(tool)
    expect(() => expect(trace).not.toCallTool(tool)).toThrow(/inspect_file_as_text/)
    const sticky = /TextInspector/g
    expect(trace.find({ name: sticky }).length).toBeGreaterThan(0)
    expect(trace.find({ name: sticky }).length).toBeGreaterThan(0)
  })

  test('fail: the message says what was expected and lists every call made, marking matches', async () => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    const error = thrownBy(() =>
      expect(trace).toCallTool('inspect_file_as_text', { args: { file_path: /\.mp3$/ }, times: 2 }),
    )
    expect(error.message).toMatchInlineSnapshot(`
      "expect(received).toCallTool(name, options)

      Expected exactly 2 calls of tool "inspect_file_as_text" with arguments matching {"file_path":/\\.mp3$/}; found 1 matching call.
      Tool calls made (2, from tool spans; → marks a match):
        → 1. inspect_file_as_text {"file_path":"data/gaia/validation/1f975693-876d-457b-a649-393859e79bf3.mp3","question":"Please transcribe the attached… — tool:TextInspectorTool (id 610df94b…, path main › … › ToolCallingAgent.run › Step 1 › TextInspectorTool)
          2. final_answer ["12,45,67"] — tool:FinalAnswerTool (id 9797bcca…, path main › answer_single_question › CodeAgent.run › Step 2 › FinalAnswerTool)"
    `)
    const wrongArgs = thrownBy(() => expect(trace).toCallTool('final_answer', { args: ['42'] }))
    expect(wrongArgs.message).toContain(
      'Expected a call of tool "final_answer" with arguments matching ["42"]; found 0 matching calls (1 more with other arguments).',
    )
  })

  test('.not: passes when the tool was not called, fails listing the offending call', async ({ task }) => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    expect(trace).not.toCallTool('web_search')
    expect(trace).not.toCallTool('final_answer', { times: 2 })
    const error = thrownBy(() => expect(trace).not.toCallTool('final_answer'))
    expect(error.message).toMatch(
      /^expect\(received\)\.not\.toCallTool\(name\)\n\nExpected no call of tool "final_answer"; found 1 matching call\.\n/,
    )
    expect(error.message).toContain('  → 2. final_answer ["12,45,67"] — tool:FinalAnswerTool (id 9797bcca…')
    // The verdict says what the run did; the assertion says whether .not expected it (a passing .not is no failure).
    expect(metaOf(task).verdicts.map((v) => [v.metric, v.outcome, v.assertion])).toEqual([
      ['tool-call', 'fail', { id: 'toCallTool#1', matcher: 'toCallTool', negated: true, passed: true }],
      ['tool-call', 'fail', { id: 'toCallTool#2', matcher: 'toCallTool', negated: true, passed: true }],
      ['tool-call', 'pass', { id: 'toCallTool#3', matcher: 'toCallTool', negated: true, passed: false }],
    ])
  })

  test('a failing positive assertion is recorded as failing under Vitest, where this.isNot is undefined', async ({
    task,
  }) => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    thrownBy(() => expect(trace).toCallTool('web_search'))
    expect(trace).toCallTool('final_answer')
    expect(metaOf(task).verdicts.map((v) => [v.outcome, v.pass, v.assertion?.negated, v.assertion?.passed])).toEqual([
      ['fail', false, false, false],
      ['pass', true, false, true],
    ])
  })

  test('a trace without tool spans falls back to the tool calls its LLM spans requested, and says so', () => {
    const error = thrownBy(() => expect(SWE_RUN).toCallTool('bash'))
    expect(error.message).toContain(
      'The run made no tool calls (requested by LLM spans — the trace has no tool spans).',
    )
  })
})

describe('toCallTool on OTel SDK spans', () => {
  test('the InMemorySpanExporter, its finished spans and their OTLP JSON all work', () => {
    const run = otelRun()
    expect(run.exporter).toCallTool('lookup_order', { args: { order_id: 'A-1042' }, times: 1 })
    expect(run.spans()).toCallTool('execute_tool lookup_order')
    expect(JSON.parse(run.otlpJson())).toCallTool('lookup_order')
    expect(run.spans()).not.toCallTool('lookup_order', { args: { order_id: 'B-7' } })
  })

  test('with the tool span missing, the LLM tool_call request counts (arguments parsed from JSON)', () => {
    const run = otelRun()
    const withoutTool = run.spans().filter((s) => !s.name.startsWith('execute_tool'))
    expect(withoutTool).toCallTool('lookup_order', { args: { order_id: 'A-1042' }, times: 1 })
    const error = thrownBy(() => expect(withoutTool).toCallTool('cancel_order'))
    expect(error.message).toContain(
      'Tool calls made (1, requested by LLM spans — the trace has no tool spans; → marks a match):',
    )
    expect(error.message).toMatch(
      /1\. lookup_order \{"order_id":"A-1042"\} — llm:chat gpt-4o-mini \(id 5a[0-9a-f]{6}…, path invoke_agent support › chat gpt-4o-mini\)/,
    )
  })
})

describe('toCallTool usage errors', () => {
  test('a bad name or option is a TypeError saying what is allowed', async () => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    expect(thrownBy(() => expect(trace).toCallTool('')).message).toContain(
      'the tool name must be a non-empty string or a RegExp — got an empty string',
    )
    expect(thrownBy(() => expect(trace).toCallTool('x', { times: 1.5 })).message).toMatch(
      /invalid options: times: .*\(allowed: \{ args\?, times\?: a whole number ≥ 0 \}\)/,
    )
    expect(thrownBy(() => expect(trace).toCallTool('x', { time: 1 } as never)).message).toContain(
      'invalid options: Unrecognized key: "time"',
    )
  })
})
