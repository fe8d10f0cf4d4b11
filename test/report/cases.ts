// Fake test cases for the renderer tests. The output/agent verdicts below are invented to exercise
// rendering (not judge results); the trace case uses a real TRAIL span tree with its *human gold
// annotations* turned into span verdicts (metric `trail-gold`, no judge info).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ReportTest, ReportTrace } from '../../src/verdict/report'
import type { Verdict } from '../../src/verdict/verdict'

export const fixturePath = (name: string) => fileURLToPath(new URL(`../fixtures/reporters/${name}`, import.meta.url))

interface TrailSkeleton {
  traceId: string
  spans: Array<{ id: string; parentId: string | null; name: string; kind: string; status: string }>
  errors: Array<{ category: string; location: string; evidence: string; description: string; impact: string }>
}

export const trail: TrailSkeleton = JSON.parse(readFileSync(fixturePath('trail-gaia-21f0c6c8.json'), 'utf8'))

const judge = (over: Partial<NonNullable<Verdict['judge']>> = {}): NonNullable<Verdict['judge']> => ({
  provider: 'openai',
  model: 'gpt-4.1-mini',
  promptVersion: 'faithfulness@1',
  tokens: { input: 1200, output: 80 },
  costUsd: 0.00061,
  latencyMs: 900,
  cached: false,
  ...over,
})

export function outputVerdicts(): Verdict[] {
  return [
    {
      id: 'v-faith',
      metric: 'faithfulness',
      level: 'output',
      scale: 'likert5',
      raw: 2,
      score: 0.25,
      threshold: 0.6,
      pass: false,
      outcome: 'fail',
      reason: 'The answer cites a 2019 figure\nthat the chart does not contain.',
      subject: 'North America, $14.10 (2019)',
      image: { digest: 'a'.repeat(64), format: 'png', source: 'shapes.png' },
      judge: judge(),
    },
    {
      id: 'v-instr',
      metric: 'instruction-following',
      level: 'output',
      scale: 'binary',
      raw: true,
      score: 1,
      threshold: 0.5,
      pass: true,
      outcome: 'pass',
      reason: 'States the region and the dollar amount.',
      judge: judge({
        promptVersion: 'instruction@1',
        tokens: { input: 900, output: 40 },
        costUsd: 0.0004,
        cached: true,
      }),
    },
  ]
}

export function agentVerdict(): Verdict {
  return {
    id: 'v-plan',
    metric: 'plan-efficiency',
    level: 'agent',
    scale: 'ratio',
    raw: null,
    score: null,
    threshold: 0.6,
    pass: false,
    outcome: 'unjudgeable',
    reason: 'judge output malformed after 3 attempts',
    judge: judge({ promptVersion: 'plan@1', tokens: { input: 3000, output: 0 }, costUsd: null }),
  }
}

/** The TRAIL trace as a report trace: gold error spans and their ancestors failed (existential policy). */
export function trailTrace(): { trace: ReportTrace; verdicts: Verdict[] } {
  const verdicts: Verdict[] = trail.errors.map((err, i) => ({
    id: `gold-${i}`,
    metric: 'trail-gold',
    level: 'span',
    spanId: err.location,
    scale: 'binary',
    raw: false,
    score: 0,
    threshold: 0.5,
    pass: false,
    outcome: 'fail',
    reason: err.description,
    category: err.category,
    evidence: err.evidence,
  }))
  const byId = new Map(trail.spans.map((s) => [s.id, s]))
  const failed = new Set<string>()
  for (const err of trail.errors) {
    for (let s = byId.get(err.location); s; s = s.parentId ? byId.get(s.parentId) : undefined) failed.add(s.id)
  }
  const trace: ReportTrace = {
    id: trail.traceId,
    spans: trail.spans.map((s) => ({
      id: s.id,
      parentId: s.parentId,
      name: s.name,
      kind: s.kind,
      failed: failed.has(s.id),
      verdictIds: verdicts.filter((v) => v.spanId === s.id).map((v) => v.id!),
    })),
  }
  return { trace, verdicts }
}

export function sampleTests(): ReportTest[] {
  const { trace, verdicts } = trailTrace()
  return [
    {
      file: 'test/chart.test.ts',
      name: 'chart answer is grounded in the chart',
      state: 'fail',
      durationMs: 1234,
      error: 'AssertionError: faithfulness 0.25 < 0.60',
      verdicts: outputVerdicts(),
    },
    {
      file: 'test/agent.test.ts',
      name: 'research agent > plans efficiently',
      state: 'fail',
      verdicts: [agentVerdict()],
    },
    {
      file: 'test/trail.test.ts',
      name: 'GAIA run 21f0c6c8 has no failing spans',
      state: 'fail',
      verdicts,
      traces: [trace],
    },
  ]
}
