// What every trace matcher accepts as expect(received), and the messages for what it does not.
import '../../../matchers/vitest'
import { pathToFileURL } from 'node:url'
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { resolveTrace } from '../../../matchers/trace-received'
import { loadTrace } from '../../../src/trace/load'
import { TraceFormatError } from '../../../src/trace/errors'
import { GAIA_SUBAGENT, otelRun, thrownBy } from './helpers'

const hint = { name: 'toCallTool', args: 'name' }

describe('resolveTrace', () => {
  test('a Trace is used as is; a path, a file URL and the parsed file give the same spans', async () => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    expect(resolveTrace(trace, hint)).toBe(trace)
    const ids = trace.spans.map((s) => s.id)
    expect(resolveTrace(GAIA_SUBAGENT, hint).spans.map((s) => s.id)).toEqual(ids)
    expect(resolveTrace(pathToFileURL(GAIA_SUBAGENT), hint).spans.map((s) => s.id)).toEqual(ids)
    expect(resolveTrace(JSON.parse(readFileSync(GAIA_SUBAGENT, 'utf8')), hint).spans.map((s) => s.id)).toEqual(ids)
    expect(resolveTrace([...trace.spans], hint).spans.map((s) => s.id)).toEqual(ids)
  })

  test('the InMemorySpanExporter and its finished spans give the SDK tree', () => {
    const run = otelRun()
    const fromExporter = resolveTrace(run.exporter, hint)
    expect(fromExporter.spans.map((s) => `${s.kind}:${s.name}`)).toEqual([
      'agent:invoke_agent support',
      'llm:chat gpt-4o-mini',
      'tool:execute_tool lookup_order',
      'llm:chat gpt-4o-mini',
    ])
    expect(resolveTrace(run.spans(), hint).spans.map((s) => s.id)).toEqual(fromExporter.spans.map((s) => s.id))
  })

  test('a wrong value fails listing what is accepted', () => {
    const error = thrownBy(() => resolveTrace(42, hint))
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toMatchInlineSnapshot(`
      "expect(received).toCallTool(name)

      received must be one of:
        - a Trace (from \`await loadTrace(path)\`),
        - what \`await captureTrace(fn)\` resolves to (\`{ result, trace }\`),
        - a trace file path (OTLP JSON/JSONL, TRAIL/OpenInference JSON) as a string or file URL,
        - an InMemorySpanExporter, or its \`getFinishedSpans()\`,
        - an array of spans from a Trace (\`trace.spans\`),
        - a parsed trace export (an OTLP \`{ resourceSpans }\` or OpenInference \`{ trace_id, spans }\` object).
      — got number"
    `)
    expect(thrownBy(() => resolveTrace(loadTrace(GAIA_SUBAGENT), hint)).message).toContain(
      '— got a Promise — await it first: expect(await loadTrace(path))',
    )
    expect(thrownBy(() => resolveTrace({ output: 'hi' }, hint)).message).toContain('— got an object with keys output')
    expect(thrownBy(() => resolveTrace([1, 2], hint)).message).toContain('— got an array whose first item is number')
  })

  test('a missing file, an empty span list or a non-trace file is a TraceFormatError under the matcher hint', () => {
    const missing = thrownBy(() => resolveTrace('traces/nope.json', hint))
    expect(missing).toBeInstanceOf(TraceFormatError)
    expect(missing.message).toBe(
      'expect(received).toCallTool(name)\n\nreceived is not a readable trace: traces/nope.json: no such file; check the path (relative paths resolve from the current directory, not the test file)',
    )
    expect(thrownBy(() => resolveTrace([], hint)).message).toContain(
      'the array of spans is empty: nothing was recorded',
    )
    expect(thrownBy(() => resolveTrace(new URL('../../../package.json', import.meta.url), hint)).message).toMatch(
      /received is not a readable trace: .*package\.json at \$: not a trace/,
    )
  })

  test('every trace matcher reports a wrong received value the same way', async () => {
    expect(thrownBy(() => expect(null).toStayWithinBudget({ tokens: 1 })).message).toMatch(
      /^expect\(received\)\.toStayWithinBudget\(budget\)\n\nreceived must be one of:[\s\S]*— got null$/,
    )
    await expect(expect(null).toHaveNoFailingSpans({ judge: false })).rejects.toThrow(
      /toHaveNoFailingSpans\(options\)\n\nreceived must be one of:/,
    )
  })
})
