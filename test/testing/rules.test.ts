import { readFileSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { FakeJudgeConfigError, loadFakeJudgeRules, startFakeJudge, type FakeJudge } from '../../src/testing'
import { clientFor, judgeOnce } from './client'

const binary = {
  type: 'object',
  properties: { reasoning: { type: 'string' }, score: { type: 'boolean' } },
  required: ['reasoning', 'score'],
  additionalProperties: false,
}

let judge: FakeJudge
beforeAll(async () => {
  judge = await startFakeJudge()
})
afterAll(() => judge.close())
beforeEach(() => {
  judge.setRules([])
  judge.reset()
})

describe('rule matching through the openai SDK', () => {
  test('no rule matched → default pass with the documented reason', async () => {
    const { reply } = await judgeOnce(clientFor(judge), { user: 'anything', schema: binary })
    expect(reply).toEqual({ reasoning: 'fake judge: no rule matched', score: true })
    expect(judge.calls[0]).toMatchObject({ rule: 'default', verdict: 'pass', status: 200 })
  })

  test('contains: a string, or an array whose every needle must occur in system + user text', async () => {
    judge.setRules([
      { name: 'both', when: { contains: ['revenue', 'EMEA'] }, respond: { verdict: 'fail', reason: 'wrong region' } },
      { name: 'one', when: { contains: 'revenue' }, respond: { verdict: 'pass', reason: 'fine' } },
    ])
    const client = clientFor(judge)
    // 'revenue' sits in the system prompt and 'EMEA' in the user part: both count.
    const both = await judgeOnce(client, { system: 'Judge the revenue answer.', user: 'EMEA leads', schema: binary })
    const one = await judgeOnce(client, { system: 'Judge the revenue answer.', user: 'APAC leads', schema: binary })
    expect(both.reply).toEqual({ reasoning: 'wrong region', score: false })
    expect(one.reply).toEqual({ reasoning: 'fine', score: true })
    expect(judge.calls.map((c) => c.rule)).toEqual(['both', 'one'])
  })

  test('regex with flags; the first matching rule wins', async () => {
    judge.setRules([
      {
        name: 'year',
        when: { regex: '\\b(19|20)\\d{2} FIGURE\\b', regexFlags: 'i' },
        respond: { verdict: 'fail', reason: 'invented figure' },
      },
      { name: 'catch-all', respond: { verdict: 'pass', reason: 'catch-all' } },
    ])
    const client = clientFor(judge)
    expect((await judgeOnce(client, { user: 'cites the 2019 figure', schema: binary })).reply.reasoning).toBe(
      'invented figure',
    )
    expect((await judgeOnce(client, { user: 'cites no year', schema: binary })).reply.reasoning).toBe('catch-all')
  })

  test('schemaName and hasImage select by response format and image parts', async () => {
    judge.setRules([
      {
        name: 'quality+image',
        when: { schemaName: 'overall_quality', hasImage: true },
        respond: { verdict: 'fail', reason: 'image judged' },
      },
      { name: 'no-image', when: { hasImage: false }, respond: { verdict: 'pass', reason: 'text only' } },
    ])
    const client = clientFor(judge)
    const withImage = await judgeOnce(client, {
      user: 'caption',
      images: 2,
      schemaName: 'overall_quality',
      schema: binary,
    })
    const otherSchema = await judgeOnce(client, {
      user: 'caption',
      images: 1,
      schemaName: 'faithfulness',
      schema: binary,
    })
    const textOnly = await judgeOnce(client, { user: 'caption', schemaName: 'overall_quality', schema: binary })
    expect(withImage.reply.reasoning).toBe('image judged')
    expect(otherSchema.reply.reasoning).toBe('fake judge: no rule matched')
    expect(textOnly.reply.reasoning).toBe('text only')
    expect(judge.calls.map((c) => [c.schemaName, c.imageCount])).toEqual([
      ['overall_quality', 2],
      ['faithfulness', 1],
      ['overall_quality', 0],
    ])
  })

  test('usage: o200k tokens of the prompt and the requested schema + 85 per image, completion counted the same way', async () => {
    const system = 'You judge captions. Reason first.'
    const { completion, content } = await judgeOnce(clientFor(judge), {
      system,
      user: 'xyz',
      images: 2,
      schema: binary,
    })
    // An independent o200k encoder, not the fake's own: the counts must be real o200k counts.
    const { Tiktoken } = await import('js-tiktoken/lite')
    const ranks = (await import('js-tiktoken/ranks/o200k_base')).default
    const enc = new Tiktoken(ranks)
    const prompt = enc.encode(`${system}\nxyz`).length + enc.encode(JSON.stringify(binary)).length + 170
    const reply = enc.encode(content).length
    expect(completion.usage).toEqual({ prompt_tokens: prompt, completion_tokens: reply, total_tokens: prompt + reply })
    // chars ÷ 4 would give a different figure here: the count is not the old estimate.
    expect(prompt).not.toBe(Math.ceil((`${system}\nxyz`.length + JSON.stringify(binary).length) / 4) + 170)
    expect(judge.calls[0].usage).toEqual(completion.usage)
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'judge-model',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant' } }],
    })
  })

  test('defaultVerdict can be a fail with its own reason', async () => {
    const strict = await startFakeJudge({ defaultVerdict: { verdict: 'fail', reason: 'unscripted prompt' } })
    try {
      const { reply } = await judgeOnce(clientFor(strict), { user: 'x', schema: binary })
      expect(reply).toEqual({ reasoning: 'unscripted prompt', score: false })
    } finally {
      await strict.close()
    }
  })

  test('setRules rejects an invalid rule with its path', () => {
    expect(() => judge.setRules([{ respond: { verdict: 'maybe' as 'pass' } }])).toThrow(/\[0\]\.respond\.verdict/)
    expect(() => judge.setRules([{ when: { regex: '(' }, respond: {} }])).toThrow(FakeJudgeConfigError)
  })
})

describe('rules files', () => {
  test('the example rules file loads and its rules answer as scripted', async () => {
    const config = await loadFakeJudgeRules('examples/fake-judge-rules.json')
    expect(config.rules?.map((r) => r.name)).toContain('wrong-region')
    const fromFile = await startFakeJudge({ ...config, latencyMs: 0, faults: [] })
    try {
      const { reply } = await judgeOnce(clientFor(fromFile), {
        system: 'Which region has the highest revenue?',
        user: 'EMEA',
        schema: binary,
      })
      expect(reply).toEqual({
        reasoning: 'The chart shows North America with the highest revenue ($14.10), not EMEA ($10.85).',
        score: false,
      })
    } finally {
      await fromFile.close()
    }
  })

  test('the sample wrong-region rule agrees with the chart it is about (the images README states what it shows)', async () => {
    const rule = (await loadFakeJudgeRules('examples/fake-judge-rules.json')).rules!.find(
      (r) => r.name === 'wrong-region',
    )!
    const row = readFileSync('examples/vitest-multimodal/images/README.md', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| `revenue-by-region.png`'))!
    const chart = new Map(
      [...row.matchAll(/(North America|EMEA|Asia Pacific|Latin America) \$(\d+\.\d\d)/g)].map((m) => [m[1], m[2]]),
    )
    expect(chart.size).toBe(4)
    const highest = [...chart].sort((a, b) => Number(b[1]) - Number(a[1]))[0][0]
    const reason = rule.respond.reason!
    expect(reason).toMatch(new RegExp(`^The chart shows ${highest} with the highest revenue`))
    // Every region the reason prices is priced as on the chart, and the region it rejects is not the highest.
    const priced = [...reason.matchAll(/(North America|EMEA|Asia Pacific|Latin America) \(\$(\d+\.\d\d)\)/g)]
    expect(priced.length).toBeGreaterThan(0)
    for (const [, region, value] of priced) expect(chart.get(region)).toBe(value)
    const rejected = /, not ([A-Za-z ]+?) \(/.exec(reason)![1]
    expect(rejected).not.toBe(highest)
    expect(rule.when?.contains).toContain(rejected)
  })

  test('a bare array is accepted; a bad file names the zod issue path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-judge-rules-'))
    const good = join(dir, 'good.json')
    const bad = join(dir, 'bad.json')
    await writeFile(good, JSON.stringify([{ when: { contains: 'x' }, respond: { verdict: 'fail' } }]))
    await writeFile(bad, JSON.stringify({ rules: [{ respond: {} }, { when: { contain: 'typo' }, respond: {} }] }))
    expect((await loadFakeJudgeRules(good)).rules).toHaveLength(1)
    const error = await loadFakeJudgeRules(bad).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FakeJudgeConfigError)
    expect((error as FakeJudgeConfigError).issues.map((i) => i.path)).toEqual(['rules[1].when'])
    expect((error as Error).message).toMatch(/rules\[1\]\.when: .*contain/)
  })
})
