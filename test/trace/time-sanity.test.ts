// Issue 33 class 14: a latency budget must not pass on implausible times (ms/µs/s epochs in ns fields, times
// in 1970 or the far future, end before start), in every trace format: OTLP JSON, GenAI semconv, TRAIL /
// OpenInference, in-memory ReadableSpans. Each row has a pass and a fail control on the same trace shape.
import '../../matchers/vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diagnose } from '../../src/diagnosis/diagnose'
import { detect } from '../../src/metrics/detectors'
import { checkBudget } from '../../src/metrics/detectors/budget'
import { tracesFromValue } from '../../src/trace/parse'
import { fromReadableSpans, type ReadableSpanLike } from '../../src/trace/readers/readable-spans'
import { timeProblems } from '../../src/trace/time-sanity'
import { Trace } from '../../src/trace/trace'
import { agentRun, createRecorder } from '../helpers/otel'
import { FIXTURE_DIR } from '../helpers/trail'

const S = 1_000_000_000n
/** 2025-01-01T00:00:00Z in ns: a plausible start. */
const T0 = 1_735_689_600n * S

/** An OTLP JSON run: a root and two children, times as given (decimal ns strings), optionally GenAI-shaped. */
function otlp(times: Array<[bigint | string, bigint | string]>, genai = false) {
  const ids = ['a000000000000001', 'a000000000000002', 'a000000000000003']
  const spans = times.map(([start, end], i) => ({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: ids[i],
    ...(i > 0 ? { parentSpanId: ids[0] } : {}),
    name: genai ? (i === 0 ? 'invoke_agent support' : 'chat gpt-4.1') : `step ${i}`,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(end),
    attributes: genai
      ? [
          { key: 'gen_ai.operation.name', value: { stringValue: i === 0 ? 'invoke_agent' : 'chat' } },
          { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4.1' } },
        ]
      : [],
  }))
  return tracesFromValue({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans }] }] }, 'run.json')[0]
}

/** A 40 s run whose times are fine. */
const GOOD: Array<[bigint, bigint]> = [
  [T0, T0 + 40n * S],
  [T0 + S, T0 + 10n * S],
  [T0 + 11n * S, T0 + 39n * S],
]
/** The same run with every time divided by `unit` (ms: 1e6, µs: 1e3, s: 1e9), as a wrong exporter writes it. */
const scaled = (unit: bigint) => GOOD.map(([s, e]) => [s / unit, e / unit] as [bigint, bigint])

type Row = [what: string, times: Array<[bigint | string, bigint | string]>, problem: RegExp]
const ROWS: Row[] = [
  ['millisecond epochs in *UnixNano', scaled(1_000_000n), /looks like milliseconds written as nanoseconds/],
  ['microsecond epochs in *UnixNano', scaled(1_000n), /looks like microseconds written as nanoseconds/],
  ['second epochs in *UnixNano', scaled(S), /looks like seconds written as nanoseconds/],
  ['a start in 1970 (a zeroed clock)', [[1n, 40n * S], ...GOOD.slice(1)], /before 2000/],
  ['zero times', [['0', '0'], ...GOOD.slice(1)], /no time recorded/],
  ['a time in 2200', [[T0, 7_258_118_400n * S], ...GOOD.slice(1)], /later than a day from now/],
  ['reversed start and end on the root', [[T0 + 40n * S, T0], ...GOOD.slice(1)], /ends 40,000 ms before it starts/],
  ['reversed start and end on a child', [GOOD[0], [T0 + 10n * S, T0 + S], GOOD[2]], /start and end swapped/],
  // Round 3 (gap 5): one bad span among good ones, and the edges of the rule.
  ['a millisecond epoch on the root only', [scaled(1_000_000n)[0], ...GOOD.slice(1)], /looks like milliseconds/],
  ['a microsecond epoch on one child only', [GOOD[0], scaled(1_000n)[1], GOOD[2]], /looks like microseconds/],
  ['a child that ends 1 ns before it starts', [GOOD[0], [T0 + S, T0 + S - 1n], GOOD[2]], /start and end swapped/],
  ['an end in 1999', [[T0, 946_684_799n * S], ...GOOD.slice(1)], /before 2000/],
  [
    'an end two days from now',
    [[T0, BigInt(Date.now() + 2 * 86_400_000) * 1_000_000n], ...GOOD.slice(1)],
    /later than a day from now/,
  ],
]

describe('timeProblems: the documented rule', () => {
  it.each(ROWS)('%s: a problem is named', (_what, times, problem) => {
    const problems = timeProblems(otlp(times).spans)
    expect(problems.length).toBeGreaterThan(0)
    expect(problems.map((p) => p.message).join('\n')).toMatch(problem)
  })

  it('controls: ns epochs from 2000 to tomorrow, and zero-length spans, are plausible', () => {
    expect(timeProblems(otlp(GOOD).spans)).toEqual([])
    const y2000 = 946_684_800n * S
    expect(timeProblems(otlp([[y2000, y2000]]).spans)).toEqual([])
    const soon = BigInt(Date.now() + 3_600_000) * 1_000_000n
    expect(timeProblems(otlp([[soon, soon]]).spans)).toEqual([])
  })
})

describe.each([
  ['OTLP JSON', false],
  ['GenAI semconv', true],
])('a latency budget on %s', (_format, genai) => {
  it.each(ROWS)('%s: a trace warning, an unjudgeable check, and the matcher fails both ways', (_w, times) => {
    const trace = otlp(times, genai)
    expect(trace.warnings.map((w) => w.code)).toContain('implausible-time')
    const result = checkBudget(trace, { latencyMs: 60_000 })
    expect(result.withinBudget).toBe(false)
    expect(result.checks[0]).toMatchObject({ budget: 'latencyMs', exceeded: false })
    expect(result.checks[0].unjudgeable).toMatch(/spans have implausible times/)
    expect(() => expect(trace).toStayWithinBudget({ latencyMs: 60_000 })).toThrow(
      /Budget latencyMs: unknown — this fails\nCause: cannot measure latencyMs/,
    )
    expect(() => expect(trace).not.toStayWithinBudget({ latencyMs: 60_000 })).toThrow(/this fails under \.not too/)
  })

  it.each(ROWS)('%s: detect() names the unjudgeable budget, diagnose() has no pass', async (_w, times) => {
    const trace = otlp(times, genai)
    const found = detect(trace, { budget: { latencyMs: 60_000 } }).filter((f) => f.detector === 'budget')
    expect(found).toEqual([
      expect.objectContaining({
        unjudgeable: true,
        reason: expect.stringMatching(/latencyMs budget cannot be checked/),
      }),
    ])
    const diagnosis = await diagnose(trace, { detectors: { budget: { latencyMs: 60_000 } }, agent: false })
    const budget = Object.values(diagnosis.spans)
      .flatMap((s) => s.verdicts)
      .filter((v) => v.metric === 'detector:budget')
    expect(budget).toEqual([expect.objectContaining({ outcome: 'unjudgeable', pass: false })])
    expect(diagnosis.verdict.pass).toBe(false)
  })

  it('controls: detect() and diagnose() on ns times — no budget finding within it, a plain one over it', async () => {
    const trace = otlp(GOOD, genai)
    expect(detect(trace, { budget: { latencyMs: 60_000 } }).filter((f) => f.detector === 'budget')).toEqual([])
    const within = await diagnose(trace, { detectors: { budget: { latencyMs: 60_000 } }, agent: false })
    expect(within.verdict.pass).toBe(true)
    const over = detect(trace, { budget: { latencyMs: 30_000 } }).filter((f) => f.detector === 'budget')
    expect(over).toHaveLength(1)
    expect(over[0].unjudgeable).toBeUndefined()
  })

  it('controls: the same run with ns times passes within budget and fails over it', () => {
    const trace = otlp(GOOD, genai)
    expect(trace.warnings.map((w) => w.code)).not.toContain('implausible-time')
    expect(checkBudget(trace, { latencyMs: 60_000 }).withinBudget).toBe(true)
    expect(trace).toStayWithinBudget({ latencyMs: 60_000 })
    expect(() => expect(trace).toStayWithinBudget({ latencyMs: 30_000 })).toThrow(/latencyMs: 40,000 ms > limit/)
  })
})

describe('a latency budget on a TRAIL / OpenInference trace', () => {
  const doc = () => JSON.parse(readFileSync(join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json'), 'utf8'))
  const load = (d: unknown) => tracesFromValue(d, 'trail.json')[0]

  it.each([
    ['a root timestamp in 1970', '1970-01-01T00:28:20.000000Z', /looks like milliseconds/],
    ['a root timestamp in 2200', '2200-01-01T00:00:00Z', /later than a day from now/],
  ])('%s: unjudgeable, never a pass', (_w, timestamp, problem) => {
    const d = doc()
    d.spans[0].timestamp = timestamp
    const trace = load(d)
    expect(trace.warnings.find((w) => w.code === 'implausible-time')?.message).toMatch(problem)
    expect(checkBudget(trace, { latencyMs: 1e12 }).withinBudget).toBe(false)
    expect(() => expect(trace).toStayWithinBudget({ latencyMs: 1e12 })).toThrow(/Budget latencyMs: unknown/)
  })

  it('control: the real trace is plausible and judged on its wall time', () => {
    const trace = load(doc())
    expect(timeProblems(trace.spans)).toEqual([])
    expect(trace).toStayWithinBudget({ latencyMs: 1e9 })
    expect(() => expect(trace).toStayWithinBudget({ latencyMs: 1 })).toThrow(/latencyMs: .* ms > limit 1 ms/)
  })
})

describe('a latency budget on in-memory ReadableSpans', () => {
  function run(change: (s: ReadableSpanLike, i: number) => ReadableSpanLike) {
    const rec = createRecorder({ seed: 41 })
    agentRun(rec.tracer)
    // A plain object, as the SDK 1.x shape: spreading an SDK span would drop its spanContext() method.
    return rec.spans().map((s, i) =>
      change(
        {
          name: s.name,
          kind: s.kind,
          spanContext: () => s.spanContext(),
          parentSpanContext: s.parentSpanContext,
          startTime: s.startTime,
          endTime: s.endTime,
          status: s.status,
          attributes: s.attributes,
          events: s.events,
        } as ReadableSpanLike,
        i,
      ),
    )
  }
  const asMs = (t: readonly [number, number]): [number, number] => [Math.floor(t[0] / 1000), 0]

  it.each([
    [
      'HrTimes in 1970 (seconds divided by 1000)',
      (s: ReadableSpanLike) => ({ ...s, startTime: asMs(s.startTime), endTime: asMs(s.endTime) }),
    ],
    [
      'reversed HrTimes',
      (s: ReadableSpanLike, i: number) => (i === 0 ? { ...s, startTime: s.endTime, endTime: s.startTime } : s),
    ],
  ])('%s: through tracesFromValue and through new Trace(fromReadableSpans()), never a pass', (_w, change) => {
    const spans = run(change as never)
    const viaReader = tracesFromValue(spans)[0]
    expect(viaReader.warnings.map((w) => w.code)).toContain('implausible-time')
    // Built by hand, with no reader warnings: the budget checks the times itself.
    const byHand = new Trace(fromReadableSpans(spans))
    for (const trace of [viaReader, byHand]) {
      expect(checkBudget(trace, { latencyMs: 1e12 }).withinBudget).toBe(false)
      expect(() => expect(trace).toStayWithinBudget({ latencyMs: 1e12 })).toThrow(/Budget latencyMs: unknown/)
    }
  })

  it('control: the SDK spans as recorded pass', () => {
    const trace = new Trace(fromReadableSpans(run((s) => s)))
    expect(timeProblems(trace.spans)).toEqual([])
    expect(trace).toStayWithinBudget({ latencyMs: 1e9 })
  })
})
