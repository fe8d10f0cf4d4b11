// The detectors' internal speed-up helpers, pinned to the plain code each stands for (a helper kept for
// speed must give the same answer on every input, the awkward ones too).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  execNear,
  forEachSpan,
  indexOfByTail,
  numberedKey,
  pushAll,
  regexPerKey,
} from '../../../src/metrics/detectors/scan'
import type { Span } from '../../../src/trace/span'

/** Strings made of the given pieces: few letters, so needles and near misses occur often. */
const pieces = (parts: string[], maxLength: number, minLength = 0) =>
  fc.array(fc.constantFrom(...parts), { minLength, maxLength }).map((a) => a.join(''))

describe('indexOfByTail', () => {
  const indexOfTemplate = indexOfByTail('template', 2)

  it('finds what indexOf finds, at the start, after a near miss and not at all', () => {
    expect(indexOfTemplate('template', 0)).toBe(0)
    expect(indexOfTemplate('a amplate, then the template:', 0)).toBe('a amplate, then the '.length)
    expect(indexOfTemplate('mplate xmplate', 0)).toBe(-1)
    expect(indexOfTemplate('template template', 1)).toBe(9)
  })

  it('equals String.indexOf for any text, needle split and start', () => {
    const text = pieces(['t', 'e', 'm', 'p', 'l', 'a', ' ', 'x'], 60)
    fc.assert(
      fc.property(text, pieces(['t', 'e', 'm', 'a'], 5, 1), fc.nat(), fc.nat(70), (hay, needle, k, from) => {
        const skip = k % needle.length
        expect(indexOfByTail(needle, skip)(hay, from)).toBe(hay.indexOf(needle, from))
      }),
      { numRuns: 2000 },
    )
  })
})

describe('execNear', () => {
  it('finds the match a scan from the start finds, when the pattern reaches at most `reach` back', () => {
    // "I will ask" + up to 10 characters + "bob": at most 10 + 10 = 20 characters before "bob".
    const source = String.raw`I will ask[^.]{0,10}?\bbob\b`
    const text = pieces(['I will ask ', 'bob', '.', ' ', 'x', 'Let me '], 12)
    fc.assert(
      fc.property(text, (t) => {
        const at = t.indexOf('bob')
        fc.pre(at !== -1)
        const near = execNear(new RegExp(source, 'g'), t, at, 20)
        const plain = new RegExp(source).exec(t)
        expect(near?.index).toBe(plain?.index)
        expect(near?.[0]).toBe(plain?.[0])
      }),
      { numRuns: 1000 },
    )
  })

  it('ignores where an earlier search left the pattern', () => {
    const pattern = /ab/g
    pattern.lastIndex = 50
    expect(execNear(pattern, 'xxab', 2, 2)?.index).toBe(2)
  })
})

describe('regexPerKey', () => {
  it('builds each key once and hands back the same regex', () => {
    const built: string[] = []
    const of = regexPerKey((key) => {
      built.push(key)
      return new RegExp(key)
    })
    expect(of('a')).toBe(of('a'))
    of('b')
    expect(built).toEqual(['a', 'b'])
  })
})

describe('numberedKey', () => {
  it('gives the same key inside and beyond the prebuilt ones', () => {
    const key = numberedKey('smolagents.managed_agents.', '.name', 2)
    expect([0, 1, 2, 10].map(key)).toEqual([0, 1, 2, 10].map((i) => `smolagents.managed_agents.${i}.name`))
  })
})

describe('forEachSpan and pushAll', () => {
  it('visit in order and append without a spread (no stack overflow at 200k items)', () => {
    const spans = ['a', 'b', 'c'].map((id) => ({ id }) as Span)
    const seen: string[] = []
    forEachSpan(spans, (s) => seen.push(s.id))
    expect(seen).toEqual(['a', 'b', 'c'])
    const target = [0]
    pushAll(
      target,
      Array.from({ length: 200_000 }, (_, i) => i + 1),
    )
    expect(target.length).toBe(200_001)
    expect(target[200_000]).toBe(200_000)
  })
})
