import { describe, expect, it } from 'vitest'
import { checkRecordingOptions, hostRecorded, readRecordingsScope } from '../../src/config/recording'

describe('AGENT_VERDICT_RECORDINGS', () => {
  it('reads unset as the default, off and all in their spellings, and refuses anything else saying what to write', () => {
    expect(readRecordingsScope({})).toBe('default')
    expect(readRecordingsScope({ AGENT_VERDICT_RECORDINGS: ' OFF ' })).toBe('off')
    expect(readRecordingsScope({ AGENT_VERDICT_RECORDINGS: '0' })).toBe('off')
    expect(readRecordingsScope({ AGENT_VERDICT_RECORDINGS: 'all' })).toBe('all')
    expect(() => readRecordingsScope({ AGENT_VERDICT_RECORDINGS: 'sometimes' })).toThrow(
      /use off .*, all .*, or leave it unset/,
    )
  })
})

describe('hostRecorded', () => {
  const url = new URL('http://127.0.0.1:4010/v1/chat')
  it('records every host by default; hosts narrows, skipHosts wins', () => {
    expect(hostRecorded(url, {})).toBe(true)
    expect(hostRecorded(url, { hosts: ['api.openai.com'] })).toBe(false)
    expect(hostRecorded(url, { hosts: ['127.0.0.1'] })).toBe(true)
    expect(hostRecorded(url, { hosts: ['127.0.0.1:4011'] })).toBe(false)
    expect(hostRecorded(url, { hosts: ['127.0.0.1:4010'], skipHosts: ['127.0.0.1'] })).toBe(false)
    expect(
      hostRecorded(new URL('https://bedrock-runtime.us-east-1.amazonaws.com/x'), { hosts: ['*.amazonaws.com'] }),
    ).toBe(true)
  })
})

describe('checkRecordingOptions', () => {
  it('accepts the three lists and refuses the rest by name', () => {
    expect(checkRecordingOptions(undefined, 'x')).toEqual({})
    expect(checkRecordingOptions({ ignoreBodyFields: ['a.b'] }, 'x')).toEqual({ ignoreBodyFields: ['a.b'] })
    expect(() => checkRecordingOptions({ hosts: 'a' }, 'x')).toThrow(/hosts must be a list of non-empty strings/)
    expect(() => checkRecordingOptions([], 'x')).toThrow(/must be an object/)
  })
})
