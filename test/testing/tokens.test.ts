import { describe, expect, it } from 'vitest'
import { loadO200k } from '../../src/judges/tokenizer'
import { memoizedCounter } from '../../src/testing/tokens'

describe('the fake judge token counter', () => {
  it('gives the tokenizer’s own counts, tokenizing each distinct text once', async () => {
    const o200k = await loadO200k()
    const seen: string[] = []
    const count = memoizedCounter((text) => {
      seen.push(text)
      return o200k(text)
    })
    const texts = ['The total is 12 dollars.', 'Total: 12 dollars', 'The total is 12 dollars.', '']
    expect(texts.map(count)).toEqual(texts.map(o200k))
    expect(seen).toEqual(['The total is 12 dollars.', 'Total: 12 dollars', ''])
  })

  it('keeps only the last `size` texts, so a long run cannot grow it without bound', () => {
    const seen: string[] = []
    const count = memoizedCounter((text) => {
      seen.push(text)
      return text.length
    }, 2)
    for (const t of ['a', 'bb', 'ccc', 'bb', 'a']) count(t)
    // 'a' was dropped when 'ccc' came in, so it is counted again; 'bb' was still kept.
    expect(seen).toEqual(['a', 'bb', 'ccc', 'a'])
  })
})
