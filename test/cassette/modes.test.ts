import { describe, expect, it } from 'vitest'
import { CassetteModeError } from '../../src/cassette/errors'
import { isTruthyEnv, parseCassetteMode, resolveCassetteSettings } from '../../src/cassette/modes'

describe('resolveCassetteSettings', () => {
  it('defaults to auto locally and replay when CI is set and truthy', () => {
    expect(resolveCassetteSettings({})).toEqual({ mode: 'auto', update: false })
    expect(resolveCassetteSettings({ CI: 'true' })).toEqual({ mode: 'replay', update: false })
    expect(resolveCassetteSettings({ CI: '1' }).mode).toBe('replay')
    expect(resolveCassetteSettings({ CI: 'false' }).mode).toBe('auto')
    expect(resolveCassetteSettings({ CI: '0' }).mode).toBe('auto')
    expect(resolveCassetteSettings({ CI: '' }).mode).toBe('auto')
  })

  it('lets AGENT_VERDICT_MODE override the CI default, case-insensitively', () => {
    expect(resolveCassetteSettings({ CI: 'true', AGENT_VERDICT_MODE: 'record' }).mode).toBe('record')
    expect(resolveCassetteSettings({ AGENT_VERDICT_MODE: ' LIVE ' }).mode).toBe('live')
    expect(resolveCassetteSettings({ AGENT_VERDICT_MODE: '' }).mode).toBe('auto')
  })

  it('reads the update flag from AGENT_VERDICT_UPDATE', () => {
    expect(resolveCassetteSettings({ CI: 'true', AGENT_VERDICT_UPDATE: '1' })).toEqual({ mode: 'replay', update: true })
    expect(resolveCassetteSettings({ AGENT_VERDICT_UPDATE: 'false' }).update).toBe(false)
  })

  it('rejects an invalid mode with a message listing the valid ones', () => {
    const err = (() => {
      try {
        resolveCassetteSettings({ AGENT_VERDICT_MODE: 'replay-only' })
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(CassetteModeError)
    expect((err as Error).message).toMatch(/^AGENT_VERDICT_MODE="replay-only" is not a cassette mode — use one of:/)
    for (const mode of ['auto (', 'replay (', 'record (', 'live (']) expect((err as Error).message).toContain(mode)
    expect(() => parseCassetteMode('sometimes', 'mode')).toThrow(/^mode="sometimes" is not a cassette mode/)
  })

  it('treats only set, non-false values as truthy', () => {
    expect([undefined, '', '0', 'false', 'No', 'off'].map(isTruthyEnv)).toEqual([
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
