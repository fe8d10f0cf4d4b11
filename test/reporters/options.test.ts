import { describe, expect, it } from 'vitest'
import { parseReporterOptions, runInfoFromEnv } from '../../reporters/options'
import { resolveCassetteSettings } from '../../src/cassette/modes'
import { DEFAULT_BEDROCK_MODEL } from '../../src/config/judge-spec'
import { defineJudge, parseJudgeSpec } from '../../src/judges/config'

describe('parseReporterOptions', () => {
  it('accepts the documented options', () => {
    expect(
      parseReporterOptions({
        outputFile: 'r.json',
        html: 'r.html',
        junit: 'r.xml',
        githubSummary: false,
        silent: true,
      }),
    ).toEqual({ outputFile: 'r.json', html: 'r.html', junit: 'r.xml', githubSummary: false, silent: true })
    expect(parseReporterOptions(undefined)).toEqual({})
    expect(parseReporterOptions({ html: false })).toEqual({ html: false })
  })

  it('rejects a misspelt option or a wrong type, naming it and listing the valid ones', () => {
    expect(() => parseReporterOptions({ outFile: 'x.json' })).toThrow(
      /invalid option.*outFile.*Valid options: outputFile/,
    )
    expect(() => parseReporterOptions({ html: true })).toThrow(/invalid option html/)
    expect(() => parseReporterOptions({ junit: '' })).toThrow(/invalid option junit.*junit \(string \| false\)/)
  })
})

describe('runInfoFromEnv', () => {
  it('records provider:model only — never a base URL', () => {
    expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'openai:gpt-4.1' }).judge).toBe('openai:gpt-4.1')
    expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'bedrock:us.anthropic.claude-sonnet-4-6-v1:0' }).judge).toBe(
      'bedrock:us.anthropic.claude-sonnet-4-6-v1:0',
    )
    expect(
      runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'openai-compatible:https://llm.internal/v1?api-version=1#qwen2.5-vl' })
        .judge,
    ).toBe('openai-compatible:qwen2.5-vl')
    expect(runInfoFromEnv({}).judge).toBeNull()
  })

  it('names the judge exactly as the judge config resolves it (AGENT_VERDICT_JUDGE=bedrock is the default Bedrock model)', () => {
    for (const spec of [
      'bedrock',
      'bedrock;timeout=20s',
      'openai:gpt-4.1;retry=30s',
      'openai-compatible:http://127.0.0.1:4010/v1#fake;header.x-gateway-token=gw-123456789',
    ]) {
      const config = parseJudgeSpec(spec)
      expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: spec }).judge).toBe(defineJudge(config).id)
    }
    expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'bedrock' }).judge).toBe(`bedrock:${DEFAULT_BEDROCK_MODEL}`)
  })

  it('records no judge for a spec the judges refuse, never a guess or a credential', () => {
    for (const spec of [
      'openai',
      'anthropic:claude',
      'openai-compatible:https://user:secret@llm.internal/v1',
      'openai-compatible:https://user:secret@llm.internal/v1#m',
    ]) {
      expect(() => parseJudgeSpec(spec)).toThrow()
      expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: spec }).judge).toBeNull()
    }
  })

  it('defaults the mode to auto locally and replay in CI, and flags an unknown mode', () => {
    expect(runInfoFromEnv({}).mode).toBe('auto')
    expect(runInfoFromEnv({ CI: 'true' }).mode).toBe('replay')
    expect(runInfoFromEnv({ CI: 'false' }).mode).toBe('auto')
    expect(runInfoFromEnv({ CI: 'true', AGENT_VERDICT_MODE: 'record' }).mode).toBe('record')
    expect(runInfoFromEnv({ AGENT_VERDICT_MODE: 'sk-oops' }).mode).toBe('invalid')
  })

  it('reads CI with the truthiness rule of the cassettes (CI=no and CI=off are not CI)', () => {
    for (const ci of ['no', 'off', 'OFF', '0', 'false', '', '1', 'true', 'github']) {
      expect(runInfoFromEnv({ CI: ci }).mode).toBe(resolveCassetteSettings({ CI: ci }).mode)
    }
    expect(runInfoFromEnv({ CI: 'no' }).mode).toBe('auto')
  })
})
