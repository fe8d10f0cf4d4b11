// src/config: each setting has one parser; these pin its rules and its refusals (what judges,
// cassettes and reporters all get from it).
import { describe, expect, it } from 'vitest'
import {
  cassetteModeForReport,
  readCassetteMode,
  readCassetteSettings,
  replayCauseFromEnv,
} from '../../src/config/cassette-mode'
import { isTruthyEnv, parsePositive, SettingError } from '../../src/config/env'
import {
  DEFAULT_BEDROCK_MODEL,
  judgeIdForReport,
  judgeSpecFromEnv,
  judgeSpecId,
  parseDuration,
  readJudgeSpec,
} from '../../src/config/judge-spec'
import { concurrencyFromEnv, requestsPerMinuteFromEnv } from '../../src/config/limits'
import { DEFAULT_MAX_REPLY_BYTES, formatByteSize, parseByteSize } from '../../src/config/reply-limits'
import { scrubSecrets } from '../../src/config/secrets'

const refusal = (parse: () => unknown): SettingError => {
  try {
    parse()
  } catch (err) {
    return err as SettingError
  }
  throw new Error('expected a refusal')
}

describe('judge spec', () => {
  it('resolves bare bedrock (also with options) to the default model', () => {
    expect(readJudgeSpec('bedrock')).toEqual({ provider: 'bedrock', model: DEFAULT_BEDROCK_MODEL })
    expect(readJudgeSpec(' bedrock;timeout=20s ')).toEqual({
      provider: 'bedrock',
      model: DEFAULT_BEDROCK_MODEL,
      timeoutMs: 20_000,
    })
    expect(judgeSpecId(readJudgeSpec('bedrock'))).toBe(`bedrock:${DEFAULT_BEDROCK_MODEL}`)
  })

  it('keeps a Bedrock model id with colons whole, and a # inside an openai-compatible URL', () => {
    expect(readJudgeSpec('bedrock:us.anthropic.claude-sonnet-4-6-v1:0;retry=1m').model).toBe(
      'us.anthropic.claude-sonnet-4-6-v1:0',
    )
    expect(readJudgeSpec('openai-compatible:http://127.0.0.1:1/v1#frag#model-x')).toMatchObject({
      baseURL: 'http://127.0.0.1:1/v1#frag',
      model: 'model-x',
    })
  })

  it('throws a SettingError naming the setting, with the header value and URL userinfo redacted', () => {
    const err = refusal(() => readJudgeSpec('openai:gpt-4.1;header.x-gateway-token=hidden-value-123;nope=1', '--judge'))
    expect(err).toBeInstanceOf(SettingError)
    expect(err.setting).toBe('--judge')
    expect(err.message).toContain('unknown option "nope"')
    expect(err.message).not.toContain('hidden-value-123')
    const creds = refusal(() => readJudgeSpec('openai-compatible:http://alice:pw-secret-9876@127.0.0.1:1/v1#m'))
    expect(creds.message).toContain('http://[redacted]@127.0.0.1:1/v1')
    expect(creds.message).not.toMatch(/alice|pw-secret-9876/)
  })

  it('registers a header value as a secret even when the spec is refused afterwards', () => {
    refusal(() => readJudgeSpec('bedrock;header.x-api-gw=planted-header-0451'))
    expect(scrubSecrets('gateway said planted-header-0451')).toBe('gateway said [redacted]')
  })

  it.each([
    '',
    '   ',
    ':',
    ';',
    'openai:',
    'openai:;timeout=1s',
    'OPENAI:gpt-4.1',
    'openai-compatible:#m',
    'bedrock;timeout=0s',
    'bedrock;timeout=-1s',
    'bedrock;concurrency=1.5',
    'openai:m;header.=x',
    'openai:m;header.bad name=x',
  ])('refuses %j', (spec) => {
    expect(() => readJudgeSpec(spec)).toThrow(SettingError)
  })

  it('reads the env judge: unset or blank is none, a bad value throws, the report only says null', () => {
    expect(judgeSpecFromEnv({})).toBeUndefined()
    expect(judgeSpecFromEnv({ AGENT_VERDICT_JUDGE: '  ' })).toBeUndefined()
    expect(() => judgeSpecFromEnv({ AGENT_VERDICT_JUDGE: 'gemini:pro' })).toThrow(/unknown provider "gemini"/)
    expect(judgeIdForReport({ AGENT_VERDICT_JUDGE: 'gemini:pro' })).toBeNull()
    expect(judgeIdForReport({ AGENT_VERDICT_JUDGE: 'openai-compatible:http://127.0.0.1:1/v1#m;timeout=2s' })).toBe(
      'openai-compatible:m',
    )
  })

  it('parses durations with a unit only', () => {
    expect([parseDuration('1500ms'), parseDuration('1.5s'), parseDuration('2m'), parseDuration('2 S')]).toEqual([
      1500, 1500, 120_000, 2000,
    ])
    expect([parseDuration('20'), parseDuration('1h'), parseDuration(''), parseDuration('s')]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ])
  })
})

describe('cassette mode', () => {
  it('is the env mode when set (any case), else replay under a truthy CI, else auto', () => {
    expect(readCassetteSettings({ AGENT_VERDICT_MODE: ' Record ', CI: '1' })).toEqual({ mode: 'record', update: false })
    expect(readCassetteSettings({ CI: 'yes', AGENT_VERDICT_UPDATE: 'true' })).toEqual({ mode: 'replay', update: true })
    expect(readCassetteSettings({ CI: 'off' }).mode).toBe('auto')
  })

  it('refuses an unknown mode naming where it came from; the report flags it instead of throwing', () => {
    const err = refusal(() => readCassetteMode('replay-only', '--mode'))
    expect(err.setting).toBe('--mode')
    expect(err.message).toMatch(/^--mode="replay-only" is not a cassette mode — use one of:/)
    expect(cassetteModeForReport({ AGENT_VERDICT_MODE: 'replay-only' })).toBe('invalid')
    expect(replayCauseFromEnv({ AGENT_VERDICT_MODE: 'replay-only', CI: 'true' })).toBeUndefined()
  })

  it('says why replay is on', () => {
    expect(replayCauseFromEnv({ CI: 'true' })).toBe('CI')
    expect(replayCauseFromEnv({ AGENT_VERDICT_MODE: 'replay' })).toBe('AGENT_VERDICT_MODE')
    expect(replayCauseFromEnv({ CI: 'true', AGENT_VERDICT_MODE: 'auto' })).toBeUndefined()
  })
})

describe('limits and flags', () => {
  it('reads AGENT_VERDICT_CONCURRENCY and AGENT_VERDICT_RPM as positive integers, unset when blank', () => {
    expect(concurrencyFromEnv({ AGENT_VERDICT_CONCURRENCY: '4' })).toBe(4)
    expect(concurrencyFromEnv({ AGENT_VERDICT_CONCURRENCY: ' ' })).toBeUndefined()
    expect(requestsPerMinuteFromEnv({ AGENT_VERDICT_RPM: '600' })).toBe(600)
    expect(() => concurrencyFromEnv({ AGENT_VERDICT_CONCURRENCY: '0' })).toThrow(
      /AGENT_VERDICT_CONCURRENCY="0" must be a positive integer \(e\.g\. AGENT_VERDICT_CONCURRENCY=8\), or unset/,
    )
    expect(() => requestsPerMinuteFromEnv({ AGENT_VERDICT_RPM: '1e400' })).toThrow(RangeError)
    expect(() => parsePositive('2.5', 'X')).toThrow(/X="2.5"/)
  })

  it('treats only set, non-false flags as true', () => {
    expect([undefined, '', ' ', '0', 'FALSE', 'No', 'off'].map(isTruthyEnv)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ])
    expect(['1', 'true', 'yes', 'github'].map(isTruthyEnv)).toEqual([true, true, true, true])
  })
})

describe('reply size limit (issue 33, class 10)', () => {
  it("maxReply=SIZE in AGENT_VERDICT_JUDGE is the judge's maxReplyBytes, with a unit", () => {
    expect(readJudgeSpec('openai:gpt-4.1;maxReply=16MB').maxReplyBytes).toBe(16 * 1024 * 1024)
    expect(readJudgeSpec('bedrock;maxReply=512KB').maxReplyBytes).toBe(512 * 1024)
    expect(readJudgeSpec('openai:gpt-4.1').maxReplyBytes).toBeUndefined()
  })

  it('a size without a unit, or none at all, is refused saying what to write', () => {
    for (const bad of ['maxReply=16', 'maxReply=', 'maxReply=0MB', 'maxReply=lots'])
      expect(() => readJudgeSpec(`openai:gpt-4.1;${bad}`)).toThrow(
        /maxReply=.* needs a size with a unit, e\.g\. maxReply=16MB/,
      )
  })

  it('sizes read and print in powers of 1024', () => {
    expect(parseByteSize('64kb')).toBe(65536)
    expect(parseByteSize('1.5 GB')).toBe(1.5 * 1024 ** 3)
    expect(formatByteSize(DEFAULT_MAX_REPLY_BYTES)).toBe('8 MB')
    expect(formatByteSize(130_867)).toBe('127.8 KB')
  })
})
