import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ExtractJsonError, extractJsonFromText } from '../../src/bench/extract-json'
import { pyJsonLoads } from '../../src/bench/py-json'
import { TRAIL_DIR } from './trail-dir'

/** The official loop, literally: greedy match, then drop one character at a time until it parses. */
function naive(text: string): unknown {
  const m = /\{[\s\S]*\}/.exec(text)
  if (!m) throw new ExtractJsonError('no match')
  let s = m[0]
  for (;;) {
    try {
      return pyJsonLoads(s)
    } catch {
      if (s.length <= 2) throw new ExtractJsonError('nothing parses')
      s = s.slice(0, -1)
    }
  }
}

/** Result or the error class name, so both versions can be compared on failures too. */
function outcome(f: (t: string) => unknown, text: string): unknown {
  try {
    return { ok: f(text) }
  } catch (err) {
    return { error: (err as Error).name }
  }
}

describe('extractJsonFromText', () => {
  test('takes the JSON out of a markdown fence with prose around it', () => {
    const text =
      'Here is my analysis.\n```json\n{"errors": [{"category": "tool", "location": "ab12"}], "scores": []}\n```\nDone.'
    expect(extractJsonFromText(text)).toEqual({ errors: [{ category: 'tool', location: 'ab12' }], scores: [] })
  })

  test('drops trailing prose that contains braces, like "{if}"', () => {
    expect(extractJsonFromText('{"errors": []}\n```\nLet me know {if} you need more.')).toEqual({ errors: [] })
  })

  test('greedy match: prose braces *before* the JSON make the whole text unparseable (as upstream)', () => {
    expect(() => extractJsonFromText('Use {this} format: {"errors": []}')).toThrow(ExtractJsonError)
  })

  test('nested objects are cut at the longest prefix that parses', () => {
    expect(extractJsonFromText('{"a": {"b": 1}} trailing } and }')).toEqual({ a: { b: 1 } })
    expect(extractJsonFromText('{"a": 1}   \n }')).toEqual({ a: 1 })
  })

  test('no braces, or nothing that parses, is an ExtractJsonError (the scorer skips the file)', () => {
    expect(() => extractJsonFromText('Context window exceeded. No output generated.')).toThrow(ExtractJsonError)
    expect(() => extractJsonFromText('} {')).toThrow(ExtractJsonError)
    expect(() => extractJsonFromText('{"errors": [')).toThrow(ExtractJsonError)
  })

  test('Python json accepts NaN and Infinity, so a reply holding them parses', () => {
    const got = extractJsonFromText('{"scores": [{"overall": NaN, "security_score": -Infinity}]}') as {
      scores: Array<Record<string, number>>
    }
    expect(got.scores[0].overall).toBeNaN()
    expect(got.scores[0].security_score).toBe(-Infinity)
  })

  test('retrying only where a prefix ends with "}" gives the literal loop\'s result on random inputs', () => {
    const pieces = ['{', '}', '[', ']', '"a"', ':', ',', '1', ' ', '\n', '"x}"', 'null', 'NaN', 'text', '"']
    const bodies = [
      '{}',
      '{"errors": []}',
      '{"a": {"b": [1, "}"]}}',
      '{"k": NaN, "s": "{x}"}',
      '{"e": [{"c": "tool"}]}',
    ]
    let seed = 12345
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 16) % n)
    const noise = (max: number) => Array.from({ length: rand(max) }, () => pieces[rand(pieces.length)]).join('')
    let parsed = 0
    for (let i = 0; i < 3000; i++) {
      // Half the cases are a real object with noise around it (and maybe a cut), half pure noise.
      let text = rand(2) === 0 ? noise(3).replace(/[{}]/g, '') + bodies[rand(bodies.length)] + noise(8) : noise(14)
      if (rand(4) === 0) text = text.slice(0, rand(text.length + 1))
      const want = outcome(naive, text)
      expect(outcome(extractJsonFromText, text), JSON.stringify(text)).toEqual(want)
      if ('ok' in (want as object)) parsed++
    }
    // The generator must exercise both outcomes for the comparison to mean anything.
    expect(parsed).toBeGreaterThan(600)
    expect(parsed).toBeLessThan(2900)
  })

  test("gives the literal loop's result on every real noisy_wrapped conformance file", () => {
    const dir = join(TRAIL_DIR, 'conformance/predictions/noisy_wrapped/SWE_Bench')
    const files = readdirSync(dir)
    expect(files.length).toBeGreaterThan(0)
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8')
      expect(extractJsonFromText(text), f).toEqual(naive(text))
    }
  })
})

describe('pyJsonLoads', () => {
  test('is JSON.parse on standard JSON', () => {
    const text = '{"a": [1, 2.5, "x\\u00e9", true, null], "__proto__": 1}'
    expect(pyJsonLoads(text)).toEqual(JSON.parse(text))
  })

  test('accepts NaN, Infinity and -Infinity anywhere a value goes', () => {
    expect(pyJsonLoads('[NaN, Infinity, -Infinity, {"k": "NaN"}]')).toEqual([
      Number.NaN,
      Infinity,
      -Infinity,
      { k: 'NaN' },
    ])
  })

  test.each([
    '[-NaN]',
    '[+Infinity]',
    '[NaN,]',
    '{"a": NaN,}',
    '[01, NaN]',
    '{"a": nan}',
    '[NaN] x',
    '["\t", NaN]',
    "{'a': NaN}",
  ])('rejects %j like Python does', (text) => {
    expect(() => pyJsonLoads(text)).toThrow(SyntaxError)
  })
})
