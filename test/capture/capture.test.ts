// The replay rule of decision 0035 on spans whose times are known: recorded time is inserted at each replayed
// call's place in the order of starts and ends, and everything after it moves by that much.
import { describe, expect, test } from 'vitest'
import { Capture, type CapturableSpan } from '../../src/capture/capture'
import type { HrTimeLike } from '../../src/trace/readers/readable-spans'

const MS = 1_000_000
const at = (ms: number): HrTimeLike => [1_700_000_000 + Math.floor(ms / 1000), (ms % 1000) * MS]
const msOf = (t: HrTimeLike) => (t[0] - 1_700_000_000) * 1000 + t[1] / MS

/** An SDK-like span: mutable end time and events, as the SDK's span object is while it runs. */
function span(id: string, parent: string | undefined, startMs: number) {
  const s = {
    name: id,
    spanContext: () => ({ traceId: 't'.repeat(32), spanId: id }),
    parentSpanContext: parent ? { spanId: parent } : undefined,
    startTime: at(startMs),
    endTime: [0, 0] as HrTimeLike,
    status: { code: 0 },
    attributes: {},
    events: [] as Array<{ name: string; time: HrTimeLike }>,
  }
  return s satisfies CapturableSpan
}

describe('Capture', () => {
  test('two replayed calls: open spans end later, later spans and events shift, earlier ones stay', () => {
    const capture = new Capture('t'.repeat(32), 'root0000')
    const agent = span('agent', 'root0000', 0)
    const llm = span('llm', 'agent', 1)
    const early = span('early', 'agent', 0)
    capture.start(agent)
    capture.start(early)
    early.endTime = at(1)
    capture.end(early)
    capture.start(llm)
    llm.events.push({ name: 'sent', time: at(2) })
    capture.noteReplay(100) // the model call, replayed: 100 ms when recorded
    llm.events.push({ name: 'read', time: at(3) })
    llm.endTime = at(4)
    capture.end(llm)
    const tool = span('tool', 'agent', 5)
    capture.start(tool)
    capture.noteReplay(50)
    tool.endTime = at(6)
    capture.end(tool)
    agent.endTime = at(7)
    capture.end(agent)

    const out = Object.fromEntries(capture.snapshot(0n).spans.map((s) => [s.name, s]))
    const times = (name: string) => [msOf(out[name].startTime), msOf(out[name].endTime)]
    expect(times('early')).toEqual([0, 1]) // ended before any replayed call
    expect(times('llm')).toEqual([1, 104])
    expect(times('tool')).toEqual([105, 156])
    expect(times('agent')).toEqual([0, 157])
    expect(out.llm.events.map((e) => msOf(e.time))).toEqual([2, 103])
    // The placeholder root is no parent: the agent span is the trace's root.
    expect(out.agent.parentSpanContext).toBeUndefined()
    expect(out.llm.parentSpanContext).toEqual({ spanId: 'agent' })
    // Handed over in start order.
    expect(capture.snapshot(0n).spans.map((s) => s.name)).toEqual(['agent', 'early', 'llm', 'tool'])
  })

  test('nothing replayed: the spans are as the SDK recorded them; a nonsense recordedMs changes nothing', () => {
    const capture = new Capture('t'.repeat(32), 'root0000')
    const a = span('a', undefined, 10)
    capture.start(a)
    for (const bad of [Number.NaN, -5, 0, Number.POSITIVE_INFINITY]) capture.noteReplay(bad)
    a.endTime = at(20)
    capture.end(a)
    const [out] = capture.snapshot(0n).spans
    expect([msOf(out.startTime), msOf(out.endTime)]).toEqual([10, 20])
    expect(capture.snapshot(0n).replayedCalls).toBe(0)
  })

  test('a span still open ends at the capture end, after the recorded time of a call it was open across', () => {
    const capture = new Capture('t'.repeat(32), 'root0000')
    const a = span('a', undefined, 10)
    capture.start(a)
    capture.noteReplay(30)
    const { spans, unfinished } = capture.snapshot(BigInt(15 * MS) + 1_700_000_000_000_000_000n)
    expect([msOf(spans[0].startTime), msOf(spans[0].endTime)]).toEqual([10, 45])
    expect(unfinished).toEqual([{ id: 'a', name: 'a' }])
  })
})
