import { describe, expect, test } from 'vitest'
import { attachVerdicts } from '../../runner/attach-verdicts'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../../src/verdict/meta'
import type { Verdict } from '../../src/verdict/verdict'

const verdict = (id: string, pass: boolean): Verdict => ({
  id,
  metric: 'span.error_category',
  level: 'span',
  spanId: id.split(':')[0],
  scale: 'binary',
  raw: pass ? 1 : 0,
  score: pass ? 1 : 0,
  threshold: 1,
  pass,
  outcome: pass ? 'pass' : 'fail',
  reason: pass ? 'fine' : 'broken',
})
const tree = (ids: string[]) => [
  { id: 'trace-1', spans: [{ id: 'a', parentId: null, name: 'root', kind: 'llm', failed: false, verdictIds: ids }] },
]

describe('attachVerdicts', () => {
  test('two assertions on one trace in one test keep verdict ids unique and trace links one-to-one', () => {
    const task = { name: 't', meta: {} as Record<string, unknown> }
    attachVerdicts({ task }, [verdict('a:span.error_category', true)], tree(['a:span.error_category']))
    attachVerdicts({ task }, [verdict('a:span.error_category', false)], tree(['a:span.error_category']))
    const meta = task.meta[VERDICT_META_KEY] as TestVerdictMeta
    expect(meta.verdicts.map((v) => [v.id, v.outcome])).toEqual([
      ['a:span.error_category', 'pass'],
      ['a:span.error_category#2', 'fail'],
    ])
    expect(meta.traces?.map((t) => t.spans[0].verdictIds)).toEqual([
      ['a:span.error_category'],
      ['a:span.error_category#2'],
    ])
  })
})
