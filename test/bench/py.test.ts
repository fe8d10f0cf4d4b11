// Python cast semantics the scorer depends on; expected values checked against CPython 3.11.
import { expect, test } from 'vitest'
import { PyError, pyFloat, pyHashKey, pyInt, pyStrip, pyTruthy } from '../../src/bench/py'

test.each([
  ['3.5', 3.5],
  [' 4 ', 4],
  ['\u00a05\u2003', 5],
  ['\x0b3\x0c', 3],
  ['3\x85', 3],
  ['1_000', 1000],
  ['1e3', 1000],
  ['1E-2', 0.01],
  ['.5', 0.5],
  ['5.', 5],
  ['1e1_0', 1e10],
  ['+1.5e+2', 150],
  ['\u0663.\u0665', 3.5],
  ['-Infinity', -Infinity],
  ['inf', Infinity],
])('float(%j) = %d', (input, want) => {
  expect(pyFloat(input)).toBe(want)
})

test('float() accepts nan spellings and non-string JSON numbers and booleans', () => {
  expect(pyFloat('nan')).toBeNaN()
  expect(pyFloat('+NaN')).toBeNaN()
  expect(pyFloat(2.5)).toBe(2.5)
  expect(pyFloat(true)).toBe(1)
})

test.each(['\x1c2\x1f', '1__0', '_1', '1_', '.', ' ', 'infin', '0x10', '3,5', '1_.5', '\ufeff3', '--1', ''])(
  'float(%j) raises ValueError',
  (input) => {
    expect(() => pyFloat(input)).toThrow(expect.objectContaining({ type: 'ValueError' }))
  },
)

test("float() of a list or dict raises TypeError (escapes the scorer's ValueError handler)", () => {
  expect(() => pyFloat([1])).toThrow(expect.objectContaining({ type: 'TypeError' }))
  expect(() => pyFloat({ a: 1 })).toThrow(expect.objectContaining({ type: 'TypeError' }))
})

test.each([
  ['3', 3],
  [' 7 ', 7],
  ['+4', 4],
  ['-0', 0],
  ['007', 7],
  ['1_0', 10],
  ['\u0663', 3],
  ['\u20073', 3],
  [3.9, 3],
  [-3.9, -3],
  [true, 1],
])('int(%j) = %d', (input, want) => {
  expect(pyInt(input)).toBe(want)
})

test.each(['3.5', '3e2', '', 'inf', '1__0', '\x1c3'])('int(%j) raises ValueError', (input) => {
  expect(() => pyInt(input)).toThrow(expect.objectContaining({ type: 'ValueError' }))
})

test('int() of NaN is a ValueError, of infinity an OverflowError, of a list a TypeError', () => {
  expect(() => pyInt(Number.NaN)).toThrow(expect.objectContaining({ type: 'ValueError' }))
  expect(() => pyInt(Infinity)).toThrow(expect.objectContaining({ type: 'OverflowError' }))
  expect(() => pyInt([3])).toThrow(PyError)
})

test("strip() uses Python's whitespace set", () => {
  expect(pyStrip('\ufeffx\ufeff')).toBe('\ufeffx\ufeff')
  expect(pyStrip('\x85x\x1c')).toBe('x')
  expect(pyStrip('\u200bx')).toBe('\u200bx')
  expect(pyStrip('\u3000x\u00a0')).toBe('x')
})

test('truthiness: 0, "", [], {}, null and false are falsy', () => {
  for (const v of [0, -0, '', [], {}, null, false]) expect(pyTruthy(v), JSON.stringify(v)).toBe(false)
  for (const v of [1, ' ', [0], { a: 0 }, true, Number.NaN]) expect(pyTruthy(v), String(v)).toBe(true)
})

test('hash keys follow Python equality: 1 == 1.0 == True, "1" differs, lists are unhashable', () => {
  expect(pyHashKey(1)).toBe(pyHashKey(true))
  expect(pyHashKey(-0)).toBe(pyHashKey(0))
  expect(pyHashKey('1')).not.toBe(pyHashKey(1))
  expect(() => pyHashKey(['a'])).toThrow(expect.objectContaining({ type: 'TypeError' }))
})
