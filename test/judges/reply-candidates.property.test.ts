// Property tests of issue 33's reply classes (fast-check). Class 1: a score written as a decimal that
// JSON.parse rounds to an in-range integer is never accepted — in the parser, or end to end through the
// real SDK clients (the Bedrock body carries the token as written). Class 2: two candidates that disagree
// (OpenAI content beside tool_calls or function_call; Bedrock tool calls beside each other or beside a JSON
// text block) never give a verdict, so the assertion fails in both directions.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { JudgeOutputError } from '../../src/judges/errors'
import { inexactNumber } from '../../src/judges/exact-numbers'
import { parseJudgeText } from '../../src/judges/parse-output'
import { BinaryOutputSchema, LikertOutputSchema } from '../../src/metrics/output-schemas'
import { callKinds, providerShapes, script, server, withNumbersAsWritten } from '../support/reply-contract'

const ctx = { provider: 'openai-compatible', model: 'llama3.2', metric: 'quality' }

/** Decimal spellings of `n` plus or minus less than half a unit in the last place: JSON.parse reads them as n. */
const roundedSpelling = (n: number) =>
  (n === 0
    ? // Below the smallest double: 1e-400, 0.000…0d with 330+ zeros.
      fc.oneof(
        fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 330, max: 999 })).map(([d, e]) => `${d}e-${e}`),
        fc
          .tuple(fc.integer({ min: 330, max: 400 }), fc.integer({ min: 1, max: 9 }))
          .map(([z, d]) => `0.${'0'.repeat(z)}${d}`),
      )
    : fc.oneof(
        // n.000…0d (at least 16 zeros: below half an ulp for n ≤ 5)
        fc
          .tuple(fc.integer({ min: 16, max: 40 }), fc.integer({ min: 1, max: 9 }))
          .map(([z, d]) => `${n}.${'0'.repeat(z)}${d}`),
        // (n−1).999…9 (at least 17 nines), maybe with more digits after
        fc
          .tuple(fc.integer({ min: 17, max: 40 }), fc.stringMatching(/^\d{0,5}$/))
          .map(([k, tail]) => `${n - 1}.${'9'.repeat(k)}${tail}`),
      )
  )
    .chain((plain) =>
      // The same value with its point moved into an exponent: 0.xyz…e1, xyz…e-2.
      fc.constantFrom(plain, toExponent(plain, 1), toExponent(plain, -2)),
    )
    .filter((s) => Number(s) === n && inexactNumber(s) !== undefined)

/** `plain` written as digits × 10^shift with the point moved accordingly (same value). */
function toExponent(plain: string, shift: number): string {
  const [int, frac = ''] = plain.split('.')
  const digits = `${int}${frac}`
  const point = int.length - shift
  return point <= 0
    ? `0.${'0'.repeat(-point)}${digits}e${shift}`
    : `${digits.slice(0, point)}.${digits.slice(point) || '0'}e${shift}`
}

describe('class 1: numbers as written', () => {
  test('a score JSON.parse rounds to an in-range integer is never accepted by the parser (binary and 1–5)', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(
            { schema: BinaryOutputSchema, n: 0 },
            { schema: BinaryOutputSchema, n: 1 },
            ...[1, 2, 3, 4, 5].map((n) => ({ schema: LikertOutputSchema, n })),
          )
          .chain((pick) => roundedSpelling(pick.n).map((spelled) => ({ ...pick, spelled }))),
        fc.boolean(),
        ({ schema, spelled }, fenced) => {
          const doc = `{"reasoning":"checked","score":${spelled}}`
          const reply = fenced ? `\`\`\`json\n${doc}\n\`\`\`` : doc
          expect(() => parseJudgeText(reply, schema as never, ctx)).toThrow(JudgeOutputError)
        },
      ),
      { numRuns: 500 },
    )
  })

  test('control: exact spellings of an in-range score are accepted as that score', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 20 }), (n, zeros) => {
        for (const spelled of [`${n}`, `${n}.${'0'.repeat(zeros + 1)}`, `${n}e0`, `${n}0e-1`, `0.${n}e1`]) {
          const parsed = parseJudgeText(`{"reasoning":"checked","score":${spelled}}`, LikertOutputSchema, ctx)
          expect(parsed.score).toBe(n)
        }
      }),
      { numRuns: 100 },
    )
  })

  describe('end to end, through the real SDK clients', () => {
    beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
    afterAll(() => server.close())
    const output = callKinds()[0]
    const shapes = providerShapes().filter((s) => s.name === 'openai json_schema' || s.name.startsWith('bedrock'))
    test.each(shapes.map((s) => [s.name, s] as const))(
      '%s: a passing score spelled as a rounded decimal never passes',
      async (_name, shape) => {
        await fc.assert(
          fc.asyncProperty(roundedSpelling(1), async (spelled) => {
            const text = withNumbersAsWritten({
              reasoning: 'Only the week label is given.',
              score: `<<num:${spelled}>>`,
            })
            script(shape.toReply({ texts: [text] }))
            expect(await output.run(shape.judge())).toBe('unjudgeable')
          }),
          { numRuns: 25 },
        )
      },
    )
  })
})

describe('class 2: candidates that disagree', () => {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
  afterAll(() => server.close())
  const output = callKinds()[0]
  const shapes = providerShapes()
  const openai = shapes.find((s) => s.name === 'openai json_schema')!
  const tool = shapes.find((s) => s.name === 'bedrock forced tool')!
  const verdict = fc.record({ reasoning: fc.string({ maxLength: 20 }), score: fc.integer({ min: 0, max: 1 }) })
  const disagreeing = fc.tuple(verdict, verdict).filter(([a, b]) => a.score !== b.score || a.reasoning !== b.reasoning)

  test('OpenAI: content beside tool_calls or a legacy function_call is never a verdict', async () => {
    await fc.assert(
      fc.asyncProperty(disagreeing, fc.boolean(), async ([content, other], legacy) => {
        const args = JSON.stringify(other)
        const message = legacy
          ? { function_call: { name: 'verdict', arguments: args } }
          : { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'verdict', arguments: args } }] }
        script(openai.toReply({ texts: [JSON.stringify(content)], openai: { message } }))
        expect(await output.run(openai.judge())).toBe('unjudgeable')
      }),
      { numRuns: 40 },
    )
  })

  test('Bedrock: two tool calls, or a tool call beside a JSON text block, that disagree are never a verdict', async () => {
    // A JSON text block beside the tool is a candidate whatever it holds: another verdict, the passing score as a
    // string, or any JSON value.
    const textual = fc.oneof(
      fc.constant(undefined),
      fc.record({ reasoning: fc.string({ maxLength: 20 }), score: fc.constantFrom('1', '0', 'pass') }),
      fc.jsonValue(),
    )
    await fc.assert(
      fc.asyncProperty(disagreeing, fc.boolean(), fc.boolean(), textual, async ([a, b], asText, textFirst, odd) => {
        const first = { toolUse: { toolUseId: 't1', name: 'verdict', input: a } }
        const second = asText
          ? { text: JSON.stringify(odd ?? b) }
          : { toolUse: { toolUseId: 't2', name: 'verdict', input: b } }
        script(tool.toReply({ texts: [], blocks: textFirst ? [second, first] : [first, second] }))
        expect(await output.run(tool.judge())).toBe('unjudgeable')
      }),
      { numRuns: 40 },
    )
  })
})
