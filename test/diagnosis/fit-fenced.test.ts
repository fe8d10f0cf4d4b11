import { describe, expect, test } from 'vitest'
import { fencedTokens, fitFenced } from '../../src/diagnosis/fit-fenced'
import { estimateTokens } from '../../src/diagnosis/tokens'
import { headTail } from '../../src/diagnosis/truncate'
import { escapeFenced, unescapeFenced } from '../../src/metrics/prompts/fence'

describe('fitFenced', () => {
  test('text without tag-like sequences is cut exactly as headTail cuts it', () => {
    const text = 'a<b <end_code> '.repeat(5_000)
    for (const n of [0, 10, 500, 20_000]) expect(fitFenced(n, (m) => headTail(text, m))).toBe(headTail(text, n))
  })

  test.each(['\uff1ctask', '</span_output>', '&lt;/goal>x', '<span>\u{1F600}'])(
    'text that escaping lengthens (%j) fits once escaped, and no escape is split',
    (unit) => {
      const text = unit.repeat(20_000)
      for (const n of [1, 7, 100, 1_000, 3_333]) {
        const cut = fitFenced(n, (m) => headTail(text, m))
        expect(fencedTokens(cut)).toBeLessThanOrEqual(n)
        // Raw text is cut and escaped afterwards: what is left is a head and a tail of the text itself, so
        // its escaped form holds only whole escapes and decodes back to it.
        const marker = /\n\[… \d+ chars \(~\d+ tokens\) elided …\]\n/.exec(cut)
        if (marker) {
          expect(text.startsWith(cut.slice(0, marker.index))).toBe(true)
          expect(text.endsWith(cut.slice(marker.index + marker[0].length))).toBe(true)
        } else expect(text.startsWith(cut) || cut === '[…]'.slice(0, cut.length)).toBe(true)
        expect(unescapeFenced(escapeFenced(cut))).toBe(cut)
        // And it keeps most of the room: at least half of what the escaped text may take.
        if (n >= 100) expect(estimateTokens(escapeFenced(cut))).toBeGreaterThan(n / 2)
      }
    },
  )
})
