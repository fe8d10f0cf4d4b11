import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { shorten, shortenLeft, wrapLine } from '../../src/cli/fit-text'

describe('wrapLine', () => {
  it('wraps at word boundaries with a hanging indent', () => {
    expect(wrapLine('    ✗ Goal Deviation: gave the final answer without looking anything up', 30, '      ')).toEqual([
      '    ✗ Goal Deviation: gave the',
      '      final answer without',
      '      looking anything up',
    ])
  })

  it('splits a word longer than a line, and cuts to maxLines with a visible …', () => {
    expect(wrapLine(`x ${'a'.repeat(25)}`, 10, '  ')).toEqual(['x aaaaaaaa', '  aaaaaaaa', '  aaaaaaaa', '  a'])
    const cut = wrapLine('one two three four five six seven eight nine ten', 12, '  ', 2)
    expect(cut).toHaveLength(2)
    expect(cut[1].endsWith('…')).toBe(true)
  })

  it('every line fits and no word is lost, for any text and width', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z…✓]{1,30}$/), { maxLength: 30 }),
        fc.integer({ min: 12, max: 120 }),
        fc.nat({ max: 8 }),
        (words, width, lead) => {
          const text = `${' '.repeat(lead)}${words.join(' ')}`
          const lines = wrapLine(text, width, `${' '.repeat(lead)}  `)
          for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(width)
          expect(
            lines
              .map((l) => l.trim())
              .join('')
              .replace(/ /g, ''),
          ).toBe(words.join(''))
        },
      ),
    )
  })
})

describe('shorten / shortenLeft', () => {
  it('cut with … at the end, or at the start for paths', () => {
    expect(shorten('LiteLLMModel.__call__', 10)).toBe('LiteLLMMo…')
    expect(shortenLeft('/very/long/path/to/trace.json', 12)).toBe('…/trace.json')
    expect(shorten('short', 10)).toBe('short')
  })
})
