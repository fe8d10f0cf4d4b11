// The tree a Trace builds over flat spans: children, leaves and parents agree on a real TRAIL run.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseTrace } from '../../src/trace/parse'
import { FIXTURE_DIR } from '../helpers/trail'

describe('Trace tree', () => {
  const file = join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json')
  const trace = parseTrace(readFileSync(file, 'utf8'), file)

  it('gives every span its children by start time, the same array on every call, and [] for leaves', () => {
    let parents = 0
    for (const span of trace.spans) {
      const kids = trace.children(span.id)
      expect(trace.isLeaf(span.id)).toBe(kids.length === 0)
      expect(trace.children(span.id)).toEqual(kids)
      if (kids.length > 0) {
        parents++
        expect(trace.children(span.id)).toBe(kids)
      }
      for (const kid of kids) expect(trace.parent(kid.id)).toBe(span)
      for (let i = 1; i < kids.length; i++) expect(kids[i - 1].startNs <= kids[i].startNs).toBe(true)
    }
    expect(parents).toBeGreaterThan(3)
    expect(trace.children('no-such-span')).toEqual([])
  })
})
