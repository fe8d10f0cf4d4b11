// The judge spec's output bound and context options, and how a misspelt option is named: as written with the
// closest accepted one, unless it looks like a credential (then never echoed).
import { describe, expect, it } from 'vitest'
import { readJudgeSpec } from '../../src/config/judge-spec'
import { closestName, editDistance } from '../../src/config/suggest'

const message = (spec: string): string => {
  try {
    readJudgeSpec(spec)
  } catch (e) {
    return (e as Error).message
  }
  throw new Error(`expected ${spec} to be refused`)
}

describe('maxOutputTokens and context', () => {
  it.each([
    ['openai-compatible:http://127.0.0.1:8080/v1#q;context=8k;concurrency=2', { contextTokens: 8192, concurrency: 2 }],
    ['openai-compatible:http://127.0.0.1:8080/v1#q;context=8192', { contextTokens: 8192 }],
    ['openai-compatible:http://127.0.0.1:8080/v1#q;context=32K', { contextTokens: 32_768 }],
    ['openai:gpt-4.1;maxOutputTokens=2048', { maxOutputTokens: 2048 }],
    ['bedrock;maxOutputTokens=600', { maxOutputTokens: 600 }],
  ])('%s', (spec, expected) => {
    expect(readJudgeSpec(spec)).toMatchObject(expected)
  })

  it.each([
    ['openai:gpt-4.1;maxOutputTokens=lots', 'maxOutputTokens=lots needs a whole number of tokens'],
    ['openai:gpt-4.1;maxOutputTokens=4', 'maxOutputTokens=4 needs a whole number of tokens from 16'],
    ['openai:gpt-4.1;context=big', 'context=big needs the server\u2019s context window in tokens, e.g. context=8k'],
    ['openai:gpt-4.1;context=100', 'context=100 needs'],
  ])('refuses %s saying what to write', (spec, why) => {
    expect(message(spec)).toContain(why)
  })
})

describe('a misspelt option', () => {
  it.each([
    ['openai:gpt-4.1;contxt=8k', 'unknown option "contxt" (did you mean context?)'],
    ['openai:gpt-4.1;maxOutputToken=900', 'unknown option "maxOutputToken" (did you mean maxOutputTokens?)'],
    ['openai:gpt-4.1;concurency=2', 'unknown option "concurency" (did you mean concurrency?)'],
    ['openai:gpt-4.1;timeout2=5s', 'unknown option "timeout2" (did you mean timeout?)'],
    ['openai:gpt-4.1;frobnicate=1', 'unknown option "frobnicate"; accepted:'],
  ])('%s is named as written', (spec, why) => {
    expect(message(spec)).toContain(why)
  })

  it.each([
    ['an OpenAI key', 'sk-proj-abcdefgh12345678'],
    ['a GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123'],
    ['a key with a long digit run', 'abc98765432'],
  ])('that looks like a credential (%s) is never echoed', (_, key) => {
    const text = message(`openai:gpt-4.1;${key}`)
    expect(text).toContain('not shown: it looks like a value or a credential')
    expect(text).not.toContain(key)
  })
})

it('an option named like a credential is named, its value never', () => {
  const text = message('openai:gpt-4.1;api_key=abcdef123')
  expect(text).toContain('unknown option "api_key"')
  expect(text).not.toContain('abcdef123')
})

describe('closestName', () => {
  it('finds a name one or two edits away, a prefix, or nothing', () => {
    expect(editDistance('diagnoze', 'diagnose')).toBe(1)
    expect(editDistance('gaet', 'gate')).toBe(1) // a swap of neighbours is one edit
    expect(closestName('diagnoze', ['diagnose', 'bench'])).toBe('diagnose')
    expect(closestName('cass', ['cassette', 'mode'])).toBe('cassette')
    expect(closestName('concurrency-limit', ['timeout', 'concurrency'])).toBe('concurrency')
    expect(closestName('frobnicate', ['diagnose', 'bench'])).toBeUndefined()
    expect(closestName('x', ['diagnose', 'bench'])).toBeUndefined()
  })
})
