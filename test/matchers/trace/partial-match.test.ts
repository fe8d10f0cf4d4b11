import { describe, expect, test } from 'vitest'
import { matchesPartially } from '../../../matchers/partial-match'

describe('matchesPartially', () => {
  test('objects match on the keys expected names, recursively', () => {
    expect(matchesPartially({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toBe(true)
    expect(matchesPartially({ a: 1 }, { a: 2 })).toBe(false)
    expect(matchesPartially({ a: 1 }, { b: undefined })).toBe(true)
    expect(matchesPartially({ a: 1 }, { a: undefined })).toBe(false)
    expect(matchesPartially([1], { 0: 1 })).toBe(false)
  })
  test('arrays match element by element with the same length', () => {
    expect(matchesPartially([{ a: 1, b: 2 }, 'x'], [{ a: 1 }, 'x'])).toBe(true)
    expect(matchesPartially([1, 2], [1])).toBe(false)
  })
  test('RegExps, asymmetric matchers and JSON strings', () => {
    expect(matchesPartially('file.mp3', /\.mp3$/)).toBe(true)
    expect(matchesPartially(3, /3/)).toBe(false)
    expect(matchesPartially({ q: 'capital of France' }, { q: expect.stringContaining('France') })).toBe(true)
    expect(matchesPartially({ n: 'x' }, { n: expect.any(Number) })).toBe(false)
    expect(matchesPartially('{"order_id":"A-1042","n":1}', { order_id: 'A-1042' })).toBe(true)
    expect(matchesPartially('not json', { order_id: 'A-1042' })).toBe(false)
    expect(matchesPartially(Number.NaN, Number.NaN)).toBe(true)
  })
})
