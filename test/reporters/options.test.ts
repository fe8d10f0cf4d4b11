import { describe, expect, it } from 'vitest'
import { parseReporterOptions, runInfoFromEnv } from '../../reporters/options'

describe('parseReporterOptions', () => {
  it('accepts the documented options', () => {
    expect(parseReporterOptions({ outputFile: 'r.json', html: 'r.html', junit: 'r.xml', githubSummary: false, silent: true })).toEqual({ outputFile: 'r.json', html: 'r.html', junit: 'r.xml', githubSummary: false, silent: true })
    expect(parseReporterOptions(undefined)).toEqual({})
    expect(parseReporterOptions({ html: false })).toEqual({ html: false })
  })

  it('rejects a misspelt option or a wrong type, naming it and listing the valid ones', () => {
    expect(() => parseReporterOptions({ outFile: 'x.json' })).toThrow(/invalid option.*outFile.*Valid options: outputFile/)
    expect(() => parseReporterOptions({ html: true })).toThrow(/invalid option html/)
    expect(() => parseReporterOptions({ junit: '' })).toThrow(/invalid option junit.*junit \(string \| false\)/)
  })
})

describe('runInfoFromEnv', () => {
  it('records provider:model only — never a base URL', () => {
    expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'openai:gpt-4.1' }).judge).toBe('openai:gpt-4.1')
    expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'bedrock:us.anthropic.claude-sonnet-4-6-v1:0' }).judge).toBe('bedrock:us.anthropic.claude-sonnet-4-6-v1:0')
    expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'openai-compatible:https://user:secret@llm.internal/v1#qwen2.5-vl' }).judge).toBe('openai-compatible:qwen2.5-vl')
    expect(runInfoFromEnv({ AGENT_VERDICT_JUDGE: 'openai-compatible:https://user:secret@llm.internal/v1' }).judge).toBe('openai-compatible')
    expect(runInfoFromEnv({}).judge).toBeNull()
  })

  it('defaults the mode to auto locally and replay in CI, and flags an unknown mode', () => {
    expect(runInfoFromEnv({}).mode).toBe('auto')
    expect(runInfoFromEnv({ CI: 'true' }).mode).toBe('replay')
    expect(runInfoFromEnv({ CI: 'false' }).mode).toBe('auto')
    expect(runInfoFromEnv({ CI: 'true', AGENT_VERDICT_MODE: 'record' }).mode).toBe('record')
    expect(runInfoFromEnv({ AGENT_VERDICT_MODE: 'sk-oops' }).mode).toBe('invalid')
  })
})
