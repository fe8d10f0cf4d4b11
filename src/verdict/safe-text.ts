// Judged content (span names, reasons, evidence, outputs) is untrusted: in a terminal its control
// characters could move the cursor, erase lines or recolour text — even print a fake "✓ pass".

// C0 controls, DEL, C1 controls (U+009B is a one-byte CSI), and the bidi overrides/isolates that reorder what is shown.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * Makes text safe to print to a terminal: every control character becomes a visible stand-in of one
 * column (C0 as its control picture, `␛` for ESC, `␡` for DEL, `�` for C1 and bidi controls), so it
 * can neither run as an escape sequence nor change the width a renderer measured. Newlines and tabs
 * are replaced too: callers that keep line structure split on `\n` first.
 *
 * @example
 * terminalSafe('ok\u001b[2K\r✓ pass') // 'ok␛[2K␍✓ pass'
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0)
    if (code < 0x20) return String.fromCharCode(0x2400 + code)
    if (code === 0x7f) return '\u2421'
    return '\ufffd'
  })
}
