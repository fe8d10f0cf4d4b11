import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadTrace } from '../../src/trace/load'
import { SpanSchema } from '../../src/trace/span'
import { spanToJSON } from '../../src/trace/span-json'
import { FIXTURE_DIR } from '../helpers/trail'

describe('spanToJSON and the Span contract', () => {
  it('turns bigint ns into decimal strings so JSON.stringify works', async () => {
    const trace = await loadTrace(join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json'))
    const tool = trace.get('610df94b266f9115')!
    expect(() => JSON.stringify(tool)).toThrow(/BigInt/)
    const json = JSON.parse(JSON.stringify(spanToJSON(tool)))
    expect(json.startNs).toBe('1742405599304871000')
    expect(json.endNs).toBe('1742405599324648000')
    expect(json.events[0].timeNs).toBe('1742405599324553000')
    expect(json.toolArgs).toEqual(tool.toolArgs)
    expect(json).not.toHaveProperty('model')
  })

  it('every span a reader produces satisfies SpanSchema', async () => {
    for (const file of ['41bbc898aa7de0f31d2382ff57700a76.json', '72822db6e120878d916b515c2501246b.json']) {
      const trace = await loadTrace(join(FIXTURE_DIR, file))
      for (const span of trace.spans) expect(SpanSchema.safeParse(span).success, span.id).toBe(true)
    }
  })
})
