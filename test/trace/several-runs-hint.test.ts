// An exporter shared by concurrent tests holds several whole runs: the error leads with captureTrace, not
// with a lost OTel context (issue 32). One run split by a lost context keeps the propagation hint.
import '../../matchers/vitest'
import { describe, expect, test } from 'vitest'
import { resolveTrace } from '../../matchers/trace-received'
import { loadTrace } from '../../src/trace/load'
import { CONCURRENT_RUNS_HINT, CONTEXT_PROPAGATION_HINT } from '../../src/trace/parse'
import { agentRun, createRecorder } from '../helpers/otel'

const hint = { name: 'toHaveNoFailingSpans' }

describe('several traces in one in-process capture', () => {
  test('three whole runs in one exporter (concurrent tests sharing it): captureTrace is the first advice', async () => {
    const shared = createRecorder()
    for (let i = 0; i < 3; i++) agentRun(shared.tracer)
    const error = (() => {
      try {
        resolveTrace(shared.exporter, hint)
      } catch (e) {
        return e as Error
      }
    })()
    expect(error?.message).toMatch(/holds 3 traces/)
    expect(error?.message).toContain(CONCURRENT_RUNS_HINT)
    expect(error?.message).not.toContain('did not propagate')
    expect(CONCURRENT_RUNS_HINT).toMatch(/captureTrace\(\(\) => agent\(…\)\)/)
    await expect(loadTrace(shared.spans())).rejects.toThrow(CONCURRENT_RUNS_HINT)
  })

  test('one run whose spans each landed in a trace of their own keeps the propagation hint, captureTrace second', () => {
    const split = createRecorder()
    const tracer = split.tracer
    for (const name of ['invoke_agent support', 'chat gpt-4o-mini', 'execute_tool lookup_order'])
      tracer.startSpan(name, { root: true }).end()
    expect(() => resolveTrace(split.exporter, hint)).toThrow(CONTEXT_PROPAGATION_HINT)
    expect(CONTEXT_PROPAGATION_HINT).toMatch(/tests running at the same time share the exporter.*captureTrace\(fn\)/)
  })
})
