import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { terminalSafe } from '../../src/verdict/safe-text'

describe('terminalSafe', () => {
  it('turns escapes, carriage returns and bidi overrides into visible one-column stand-ins', () => {
    expect(terminalSafe('ok\u001b[2K\r✓ pass')).toBe('ok␛[2K␍✓ pass')
    expect(terminalSafe('a\u0007b\u007fc\u009b31md\u202eE')).toBe('a␇b␡c\ufffd31md\ufffdE')
    expect(terminalSafe('tab\there\nnext')).toBe('tab␉here␊next')
    expect(terminalSafe('plain text · ✓ ✗ … 😀')).toBe('plain text · ✓ ✗ … 😀')
  })

  it('never lets a control character through and never changes the length (so widths stay measured)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const safe = terminalSafe(s)
        expect(safe).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
        expect(safe.length).toBe(s.length)
      }),
    )
  })
})
