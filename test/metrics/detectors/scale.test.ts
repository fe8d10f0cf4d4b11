import { describe, expect, it } from 'vitest'
import { detect } from '../../../src/metrics/detectors/index'
import { newSpan } from '../../../src/trace/readers/common'
import { Trace } from '../../../src/trace/trace'

describe('detectors on very large traces', () => {
  it('report 200k failing tool calls (past the ~150k items where a spread push overflows the stack)', () => {
    const n = 200_000
    const id = (i: number) => i.toString(16).padStart(16, '0')
    const spans = [
      newSpan(
        id(1),
        null,
        't',
        'agent',
        0n,
        BigInt(n + 2),
        'error',
        'failed',
        { 'openinference.span.kind': 'AGENT' },
        [],
      ),
    ]
    spans[0].kind = 'agent'
    for (let i = 2; i <= n + 1; i++) {
      const s = newSpan(
        id(i),
        id(1),
        't',
        'fetch',
        BigInt(i),
        BigInt(i + 1),
        'error',
        'HTTP 503 Service Unavailable',
        {},
        [],
      )
      s.kind = 'tool'
      s.toolName = 'fetch'
      s.toolArgs = { url: `https://example.org/${i}` }
      spans.push(s)
    }
    const findings = detect(new Trace(spans), { detectors: ['error-status'] })
    expect(findings).toHaveLength(n)
    expect(findings.every((f) => f.category === 'Service Errors')).toBe(true)
  })
})
