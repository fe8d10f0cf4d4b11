// The one excerpt rule and the one short span id rule every message, report and prompt uses.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cutText, oneLineExcerpt, shortSpanId } from '../../src/verdict/text'

const isWellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

describe('oneLineExcerpt', () => {
  it('collapses every kind of line break and run of whitespace into one space and trims', () => {
    expect(oneLineExcerpt('  a\n\n\tb\r\nc\u2028d\u2029e\u0085f\u000bg\u00a0 h  ')).toBe('a b c d e f g h')
  })

  it('cuts to max code points with … and leaves shorter text whole', () => {
    expect(oneLineExcerpt('abcdef', 6)).toBe('abcdef')
    expect(oneLineExcerpt('abcdefg', 6)).toBe('abcde…')
    expect(oneLineExcerpt('a\n b', 3)).toBe('a b')
  })

  it('never splits a surrogate pair, and counts an emoji as one', () => {
    expect(oneLineExcerpt('😀😀😀😀', 4)).toBe('😀😀😀😀')
    expect(oneLineExcerpt('ab😀cd', 3)).toBe('ab…')
    expect(oneLineExcerpt('a😀😀😀', 3)).toBe('a😀…')
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 1, max: 40 }), (text, max) => {
        const out = oneLineExcerpt(text, max)
        expect(isWellFormed(out)).toBe(true)
        expect(Array.from(out).length).toBeLessThanOrEqual(max)
        expect(out).not.toMatch(/[\n\r\u2028\u2029\u0085]/)
      }),
    )
  })

  it('cutText gives what splitting the text into code points gives, lone surrogates and fractional limits too', () => {
    // The rule as it was first written: cutText now counts code points only as far as the cut.
    const byCodePoints = (text: string, max: number) => {
      if (!Number.isFinite(max) || text.length <= max) return text
      const chars = Array.from(text)
      if (chars.length <= max) return text
      if (max < 1) return ''
      return `${chars.slice(0, max - 1).join('')}…`
    }
    const text = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }), // lone and reversed surrogates
      fc.array(fc.constantFrom('a', '😀', '\ud800', '\udc00', ' ')).map((parts) => parts.join('')),
    )
    const max = fc
      .tuple(fc.integer({ min: -2, max: 12 }), fc.constantFrom(0, 0.3, 0.5, 0.7))
      .map(([whole, part]) => whole + part)
    fc.assert(
      fc.property(text, max, (t, m) => {
        expect(cutText(t, m)).toBe(byCodePoints(t, m))
      }),
      { numRuns: 2000 },
    )
    expect(cutText('😀'.repeat(100_000), 3)).toBe('😀😀…')
  })

  it('keeps other control characters for the output to escape (terminalSafe, HTML, JSON)', () => {
    expect(oneLineExcerpt('ok\u001b[2K ✓ pass\u0007')).toBe('ok\u001b[2K ✓ pass\u0007')
  })

  it('handles empty and blank text and tiny limits', () => {
    expect(oneLineExcerpt('')).toBe('')
    expect(oneLineExcerpt(' \n\t ')).toBe('')
    expect(oneLineExcerpt('abc', 1)).toBe('…')
    expect(oneLineExcerpt('abc', 0)).toBe('')
    expect(cutText('abc', Number.POSITIVE_INFINITY)).toBe('abc')
    expect(cutText('abc', Number.NaN)).toBe('abc')
  })
})

describe('shortSpanId', () => {
  it('shows the first 8 characters of a long id with …, short ids whole', () => {
    expect(shortSpanId('4a1f9c2e7b3d5f60')).toBe('4a1f9c2e…')
    expect(shortSpanId('0123456789')).toBe('0123456789')
    expect(shortSpanId('01234567890')).toBe('01234567…')
    expect(shortSpanId('')).toBe('')
  })

  it('can leave the mark out, and never splits a surrogate pair of an odd id', () => {
    expect(shortSpanId('4a1f9c2e7b3d5f60', '')).toBe('4a1f9c2e')
    expect(shortSpanId('span-😀😀😀😀😀😀')).toBe('span-😀😀😀…')
  })
})
