import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import * as z from 'zod'
import { startFakeJudge, type FakeJudge } from '../../src/testing'
import { synthesizeReply } from '../../src/testing/synthesize'
import { TRAIL_CATEGORIES } from '../../src/taxonomy'
import { clientFor, judgeOnce } from './client'

// Output schemas shaped like the project's judges declare them; the JSON schema sent is z.toJSONSchema's.
const Binary = z.object({ reasoning: z.string(), score: z.boolean() })
const Likert = z.object({ reasoning: z.string(), score: z.number().int().min(1).max(5) })
const Aspect = z.object({ reasoning: z.string(), score: z.number().int().min(1).max(5) })
const Category = z.enum(['none', ...TRAIL_CATEGORIES])
const MultiAspect = z.object({
  reasoning: z.string(),
  aspects: z.object({ instructionFollowing: Aspect, reasoningIntegrity: Aspect, toolCompleteness: Aspect }),
  category: Category.nullable(),
  evidence: z.array(z.string()),
  spans: z.array(z.object({ spanId: z.string(), failed: z.boolean() })),
  score: z.number().min(0).max(1),
})
const Labelled = z.object({
  explanation: z.string(),
  verdict: z.enum(['faithful', 'unfaithful']),
  confidence: z.number().min(0.5).max(1),
})

const schemaOf = (schema: z.ZodType) => z.toJSONSchema(schema) as Record<string, unknown>

let judge: FakeJudge
beforeAll(async () => {
  judge = await startFakeJudge()
})
afterAll(() => judge.close())
beforeEach(() => judge.setRules([]))

async function ask<T>(schema: z.ZodType<T>, user = 'judge this'): Promise<T> {
  const { reply } = await judgeOnce(clientFor(judge), { user, schemaName: 'verdict', schema: schemaOf(schema) })
  return schema.parse(reply)
}

describe('replies fit the requested JSON schema', () => {
  test('binary pass/fail: boolean score follows the verdict', async () => {
    judge.setRules([{ when: { contains: 'bad' }, respond: { verdict: 'fail', reason: 'r-fail' } }])
    expect(await ask(Binary, 'good')).toEqual({ reasoning: 'fake judge: no rule matched', score: true })
    expect(await ask(Binary, 'bad')).toEqual({ reasoning: 'r-fail', score: false })
  })

  test('1–5 Likert: max on pass, min on fail, explicit score as given; keys in schema order', async () => {
    judge.setRules([
      { when: { contains: 'fail' }, respond: { verdict: 'fail' } },
      { when: { contains: 'three' }, respond: { score: 3, reason: 'middling' } },
    ])
    expect(await ask(Likert, 'pass')).toEqual({ reasoning: 'fake judge: no rule matched', score: 5 })
    expect(await ask(Likert, 'fail')).toMatchObject({ score: 1 })
    const three = await ask(Likert, 'three')
    expect(Object.keys(three)).toEqual(['reasoning', 'score'])
    expect(three).toEqual({ reasoning: 'middling', score: 3 })
    // A mid-scale score counts as a pass for the call record; 2 of 1–5 is a fail.
    judge.setRules([{ respond: { score: 2 } }])
    await ask(Likert)
    expect(judge.calls.at(-2)?.verdict).toBe('pass')
    expect(judge.calls.at(-1)?.verdict).toBe('fail')
  })

  test('nested multi-aspect object: category "none" on pass, a real category on fail, fields override at depth', async () => {
    const pass = await ask(MultiAspect)
    expect(pass).toEqual({
      reasoning: 'fake judge: no rule matched',
      aspects: {
        instructionFollowing: { reasoning: 'fake judge: no rule matched', score: 5 },
        reasoningIntegrity: { reasoning: 'fake judge: no rule matched', score: 5 },
        toolCompleteness: { reasoning: 'fake judge: no rule matched', score: 5 },
      },
      category: 'none',
      evidence: ['fake judge: no rule matched'],
      spans: [],
      score: 1,
    })

    judge.setRules([
      {
        respond: {
          verdict: 'fail',
          reason: 'misread the tool output',
          fields: {
            category: 'Tool Output Misinterpretation',
            reasoningIntegrity: { score: 2, reasoning: 'cites a 2019 figure the tool did not return' },
            spans: [{ spanId: '4a1f', failed: true }],
          },
        },
      },
    ])
    const fail = await ask(MultiAspect)
    expect(fail.category).toBe('Tool Output Misinterpretation')
    expect(fail.score).toBe(0)
    expect(fail.aspects.instructionFollowing).toEqual({ reasoning: 'misread the tool output', score: 1 })
    expect(fail.aspects.reasoningIntegrity).toEqual({
      reasoning: 'cites a 2019 figure the tool did not return',
      score: 2,
    })
    expect(fail.spans).toEqual([{ spanId: '4a1f', failed: true }])
  })

  test('enum verdict field gets the pass-/fail-like word; other numbers stay in range', async () => {
    judge.setRules([{ when: { contains: 'no' }, respond: { verdict: 'fail', reason: 'unsupported claim' } }])
    expect(await ask(Labelled, 'yes')).toEqual({
      explanation: 'fake judge: no rule matched',
      verdict: 'faithful',
      confidence: 0.5,
    })
    expect(await ask(Labelled, 'no')).toEqual({
      explanation: 'unsupported claim',
      verdict: 'unfaithful',
      confidence: 0.5,
    })
  })

  test('without a category that fails, a fail picks the first non-"none" category', async () => {
    judge.setRules([{ respond: { verdict: 'fail' } }])
    expect((await ask(MultiAspect)).category).toBe(TRAIL_CATEGORIES[0])
  })

  test('json_object mode returns { reasoning, score } plus fields', async () => {
    judge.setRules([{ respond: { verdict: 'fail', reason: 'nope', fields: { category: 'Formatting Errors' } } }])
    const { reply } = await judgeOnce(clientFor(judge), { user: 'x', jsonObject: true })
    expect(reply).toEqual({ reasoning: 'nope', score: 0, category: 'Formatting Errors' })
    expect(judge.calls.at(-1)).toMatchObject({ responseFormat: 'json_object', schemaName: null })
  })
})

describe('schema walking details', () => {
  const plan = { verdict: 'pass' as const, reason: 'why', fields: {} }

  test('$ref/$defs, allOf, type arrays and exclusive bounds', () => {
    const schema = {
      type: 'object',
      $defs: { Score: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 11 } },
      properties: {
        rationale: { type: ['string', 'null'] },
        detail: {
          allOf: [
            { type: 'object', properties: { note: { type: 'string', minLength: 3 } } },
            { properties: { ok: { type: 'boolean' } } },
          ],
        },
        tags: { type: 'array', items: { type: 'string', const: 'tag' }, minItems: 2 },
        rating: { $ref: '#/$defs/Score' },
      },
    }
    expect(synthesizeReply(schema, plan)).toEqual({
      rationale: 'why',
      detail: { note: 'xxx', ok: true },
      tags: ['tag', 'tag'],
      rating: 10,
    })
    expect(synthesizeReply(schema, { ...plan, verdict: 'fail' })).toMatchObject({ detail: { ok: false }, rating: 1 })
  })

  test('recursive schemas terminate', () => {
    const tree = {
      type: 'object',
      properties: { reason: { type: 'string' }, children: { type: 'array', items: { $ref: '#' }, minItems: 1 } },
    }
    const reply = synthesizeReply(tree, plan) as { children: unknown[] }
    let depth = 0
    for (let node = reply; node.children.length > 0; node = node.children[0] as typeof reply) depth++
    expect(depth).toBeGreaterThan(5)
  })
})
