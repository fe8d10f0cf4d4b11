// Expected values were produced by running the official normalize_category logic in CPython 3.11.
import { expect, test } from 'vitest'
import { normalizeCategory } from '../../src/bench/normalize-category'
import { PyError } from '../../src/bench/py'

test.each([
  ['tool', 'Tool-related'],
  ['error', 'Tool Selection Errors'],
  ['resource', 'Resource Not Found'],
  ['rate', 'Rate Limiting'],
  ['x', 'Resource Exhaustion'],
  [' ', 'Language-only'],
  ['Tool Selection', 'Tool Selection Errors'],
  ['Context Handling Failure', 'Context Handling Failures'],
  ['formatting', 'Formatting Errors'],
  ['LANGUAGE-ONLY', 'Language-only'],
  ['INSTRUCTION NON-COMPLIANCE', 'Instruction Non-compliance'],
  ['Tool-Related', 'Tool-related'],
  ['ResourceAbuse', 'Resource Abuse'],
  ['Resource  Abuse', 'Resource Abuse'],
  [' Incorrect Problem Identification', 'Incorrect Problem Identification'],
])('%j normalises to the label %j', (input, label) => {
  expect(normalizeCategory(input)).toBe(label)
})

test.each([
  ['Task Orchestration Errors', 'task orchestration errors'],
  ['Instruction non complience', 'instruction non complience'],
  ['Instruction Noncompliance', 'instruction noncompliance'],
  ['language only', 'language only'],
  ['tool related', 'tool related'],
])('%j matches no label and is kept lower-cased as %j', (input, kept) => {
  expect(normalizeCategory(input)).toBe(kept)
})

test("strip() is Python's: Unicode spaces, U+0085 and U+001C go, U+FEFF stays", () => {
  expect(normalizeCategory('\u2003Goal Deviation\u2003')).toBe('Goal Deviation')
  expect(normalizeCategory('\x85Timeout Issues\x1c')).toBe('Timeout Issues')
  expect(normalizeCategory('\ufeffTimeout Issues')).toBe('\ufefftimeout issues')
})

test('only ASCII spaces are removed for the no-space comparison', () => {
  expect(normalizeCategory('Formatting\u00a0Errors')).toBe('formatting\u00a0errors')
})

test('falsy input gives "" and a non-string category raises like Python (file skipped)', () => {
  expect(normalizeCategory('')).toBe('')
  expect(normalizeCategory(null)).toBe('')
  expect(normalizeCategory(0)).toBe('')
  expect(() => normalizeCategory(5)).toThrow(PyError)
  expect(() => normalizeCategory(['Goal Deviation'])).toThrow(/lower/)
})
