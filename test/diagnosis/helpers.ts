// Small handmade traces for unit tests (propagation, truncation), and the fake judge wiring for e2e tests.
import { openaiJudge } from '../../src/judges/openai'
import type { Span, SpanKind } from '../../src/trace/span'
import { Trace } from '../../src/trace/trace'
import type { FakeJudge } from '../../src/testing/fake-judge'

export interface SpanSpec {
  id: string
  parent?: string
  kind?: SpanKind
  name?: string
  input?: unknown
  output?: unknown
  status?: Span['status']
  statusMessage?: string
  toolName?: string
  toolArgs?: unknown
  attributes?: Record<string, unknown>
}

/** A trace from compact specs; start times follow the list order (1 ms apart, each lasting 0.5 ms). */
export function handmadeTrace(specs: SpanSpec[]): Trace {
  const t0 = 1_700_000_000_000_000_000n
  const spans: Span[] = specs.map((s, i) => ({
    id: s.id,
    parentId: s.parent ?? null,
    traceId: 'handmade',
    name: s.name ?? s.id,
    kind: s.kind ?? 'other',
    startNs: t0 + BigInt(i) * 1_000_000n,
    endNs: t0 + BigInt(i) * 1_000_000n + 500_000n,
    durationNs: 500_000,
    status: s.status ?? 'ok',
    statusMessage: s.statusMessage ?? '',
    attributes: s.attributes ?? {},
    events: [],
    ...(s.input !== undefined ? { input: s.input } : {}),
    ...(s.output !== undefined ? { output: s.output } : {}),
    ...(s.toolName ? { toolName: s.toolName } : {}),
    ...(s.toolArgs !== undefined ? { toolArgs: s.toolArgs } : {}),
  }))
  return new Trace(spans)
}

/** An OpenAI judge on the fake server with a short retry budget, so a faulted span gives up quickly. */
export function fakeJudgeClient(fake: FakeJudge, concurrency = 8) {
  return openaiJudge({
    model: 'fake-judge',
    baseURL: fake.baseURL,
    concurrency,
    maxWaitMs: 300,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  })
}

/** Largest prompt the fake server counted over all its recorded calls. */
export function maxPromptTokens(fake: FakeJudge): number {
  return Math.max(0, ...fake.calls.map((c) => c.usage?.prompt_tokens ?? 0))
}
