import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { ImageInputError } from '../../src/media/errors'
import { correctnessMetric } from '../../src/metrics/correctness'
import { faithfulnessMetric } from '../../src/metrics/faithfulness'
import { runMetric } from '../../src/metrics/run-metric'
import { startJudgeHarness, type JudgeHarness } from '../support/recording-judge'

let h: JudgeHarness
beforeAll(async () => {
  h = await startJudgeHarness()
})
afterAll(() => h.close())
beforeEach(() => {
  h.fake.reset()
  h.bodies.length = 0
})

// Each bad input must be refused by loadImage before the judge is called: no tokens, no request.
test.each([
  [
    'SVG',
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
    { detected: 'svg' },
    /SVG is not supported/,
  ],
  ['PDF', Buffer.from('%PDF-1.7\n1 0 obj\n'), { detected: 'pdf' }, /PDF/],
  ['empty bytes', new Uint8Array(0), { detected: 'empty' }, /empty/],
  ['unknown bytes', Buffer.from('just some text, not an image'), { detected: 'unknown' }, /unrecognised/],
  ['a missing file', 'test/fixtures/images/does-not-exist.png', {}, /not found/],
  ['a plain-http remote URL', 'http://example.com/chart.png', {}, /https/],
  ['a malformed data URL', 'data:image/png;base64', {}, /malformed data URL/],
])('%s → ImageInputError, nothing sent', async (_name, image, fields, message) => {
  const run = runMetric(faithfulnessMetric, { output: 'North America leads.', image }, { judge: h.judge })
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ImageInputError)
  expect(error).toMatchObject(fields)
  expect((error as Error).message).toMatch(message)
  expect(h.bodies).toHaveLength(0)
  expect(h.fake.stats.requests).toBe(0)
})

test('a wrong image type is a usage error naming what is accepted', async () => {
  await expect(runMetric(correctnessMetric, { output: 'x', image: 42 as never }, { judge: h.judge })).rejects.toThrow(
    /expected an image: a file path, data URL/,
  )
  expect(h.fake.stats.requests).toBe(0)
})
