import * as z from 'zod'
import { describe, expect, it } from 'vitest'
import { JudgeOutputError } from '../../src/judges/errors'
import { strictJsonSchema } from '../../src/judges/json-schema'
import { duplicateKey, parseJudgeText, wholeDocument } from '../../src/judges/parse-output'
import { LikertSchema } from './helpers'

const ctx = { provider: 'openai-compatible', model: 'llava', metric: 'overall-quality' }

describe('strictJsonSchema', () => {
  it('makes nested objects strict, optional fields nullable, and keeps property order', () => {
    const schema = z.object({
      reasoning: z.string(),
      aspects: z.object({ accuracy: z.number().int().min(1).max(5), note: z.string().optional() }),
      evidence: z.array(z.object({ quote: z.string() })).default([]),
      score: z.number().min(0).max(1),
    })
    const json = strictJsonSchema(schema) as any
    expect(json.$schema).toBeUndefined()
    expect(Object.keys(json.properties)).toEqual(['reasoning', 'aspects', 'evidence', 'score'])
    expect(json.required).toEqual(['reasoning', 'aspects', 'evidence', 'score'])
    expect(json.additionalProperties).toBe(false)
    expect(json.properties.aspects).toMatchObject({ required: ['accuracy', 'note'], additionalProperties: false })
    expect(json.properties.aspects.properties.note).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] })
    expect(json.properties.evidence.anyOf[0]).not.toHaveProperty('default')
    expect(json.properties.evidence.anyOf[0].items).toMatchObject({ additionalProperties: false, required: ['quote'] })
  })
})

describe('parseJudgeText', () => {
  it('parses plain JSON and a reply that is one fenced block', () => {
    const verdict = { reasoning: 'fine', score: 3 }
    expect(parseJudgeText(JSON.stringify(verdict), LikertSchema, ctx)).toEqual(verdict)
    expect(parseJudgeText('```json\n' + JSON.stringify(verdict) + '\n```', LikertSchema, ctx)).toEqual(verdict)
    expect(parseJudgeText('  ```\n' + JSON.stringify(verdict) + '\n```\n', LikertSchema, ctx)).toEqual(verdict)
  })

  it('refuses JSON wrapped in prose: the whole reply must be the verdict', () => {
    const verdict = JSON.stringify({ reasoning: 'fine', score: 3 })
    expect(() => parseJudgeText('Sure! ' + verdict + ' Hope that helps.', LikertSchema, ctx)).toThrow(
      /not JSON as a whole/,
    )
  })

  it('a quoted passing block followed by the real failing verdict is no verdict, never the quoted pass', () => {
    const reply =
      'The rubric example reads:\n```json\n{"reasoning":"great","score":5}\n```\nMy verdict:\n{"reasoning":"wrong region","score":1}'
    expect(() => parseJudgeText(reply, LikertSchema, ctx)).toThrow(JudgeOutputError)
  })

  it('a code fence inside the reasoning string does not hide a valid verdict', () => {
    const reply = JSON.stringify({ reasoning: 'It printed ```json\n{"score":5}\n``` which is wrong.', score: 1 })
    expect(parseJudgeText(reply, LikertSchema, ctx)).toEqual({
      reasoning: 'It printed ```json\n{"score":5}\n``` which is wrong.',
      score: 1,
    })
  })

  it('refuses keys the schema does not have, naming the key', () => {
    expect(() => parseJudgeText('{"reasoning":"r","score":2,"pass":true}', LikertSchema, ctx)).toThrow(
      /unexpected key pass/,
    )
  })

  it('a key given twice is no verdict, whichever copy would fail: JSON.parse keeps only the last', () => {
    // {"score":1,"score":5} parses as a 5: the failing 1 must not be silently dropped.
    expect(() => parseJudgeText('{"reasoning":"wrong","score":1,"score":5}', LikertSchema, ctx)).toThrow(
      /key score given twice/,
    )
    // The same key spelled with an escape, and inside a fence.
    expect(() =>
      parseJudgeText('```json\n{"reasoning":"r","score":1,"\\u0073core":5}\n```', LikertSchema, ctx),
    ).toThrow(/key score given twice/)
    try {
      parseJudgeText('{"reasoning":"r","reasoning":"s","score":2}', LikertSchema, ctx)
      expect.unreachable()
    } catch (error) {
      // Retryable: the judge is asked again, and an answer that stays two-faced ends unjudgeable.
      expect(error).toBeInstanceOf(JudgeOutputError)
      expect((error as JudgeOutputError).retryable).toBe(true)
    }
  })

  it('duplicateKey names the repeated key by its path and ignores equal keys in different objects', () => {
    expect(duplicateKey('{"a":{"b":1,"b":2}}')).toBe('a.b')
    expect(duplicateKey('{"a":[{"b":1},{"b":2,"c":{"d":1,"d":1}}]}')).toBe('a[].c.d')
    expect(duplicateKey('{"a":{"b":1},"c":{"b":2},"s":"{\\"a\\":1,\\"a\\":2}"}')).toBeUndefined()
    expect(duplicateKey('[{"a":1},{"a":1}]')).toBeUndefined()
    expect(duplicateKey('{"q":"a \\" quote","q2":"\\\\","q":1}')).toBe('q')
    expect(duplicateKey('{}')).toBeUndefined()
  })

  it('drops nulls that stand for omitted optional fields', () => {
    expect(parseJudgeText('{"reasoning":"r","score":2,"category":null}', LikertSchema, ctx)).toEqual({
      reasoning: 'r',
      score: 2,
    })
  })

  it('rejects non-JSON with an excerpt, and an out-of-range score naming the field', () => {
    const notJson = (() => {
      try {
        parseJudgeText('I think the answer is good, 4/5.', LikertSchema, ctx)
      } catch (e) {
        return e as JudgeOutputError
      }
    })()
    expect(notJson).toBeInstanceOf(JudgeOutputError)
    expect(notJson!.excerpt).toBe('I think the answer is good, 4/5.')
    expect(() => parseJudgeText('{"reasoning":"r","score":6}', LikertSchema, ctx)).toThrow(/score: .*5/)
  })

  it('trims long raw output to a head-and-tail excerpt', () => {
    const long = `{"reasoning":"${'x'.repeat(5000)}","score":"five"}`
    try {
      parseJudgeText(long, LikertSchema, ctx)
      expect.unreachable()
    } catch (e) {
      const err = e as JudgeOutputError
      expect(err.excerpt.length).toBeLessThanOrEqual(300)
      expect(err.excerpt).toContain('"score":"five"}')
    }
  })

  it('wholeDocument unwraps one surrounding fence only', () => {
    expect(wholeDocument('  {"a":1} ')).toBe('{"a":1}')
    expect(wholeDocument('```json\n{"a":1}\n```')).toBe('{"a":1}')
    expect(wholeDocument('```json\n{"a":1}\n```\n```json\n{"a":0}\n```')).not.toBe('{"a":1}')
  })
})
