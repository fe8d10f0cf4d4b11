// The tests' own decoder for planted-secret scans: every decoded form of a text (JSON escapes, percent-encoding,
// HTML entities, `+` as space), written independently of src/config/decoded-views.ts so a scan does not trust
// the code it checks.

const NAMED_BACK: Record<string, string> = {
  sol: '/',
  amp: '&',
  plus: '+',
  equals: '=',
  colon: ':',
  period: '.',
  lowbar: '_',
  hyphen: '-',
  num: '#',
  semi: ';',
  percnt: '%',
  bsol: '\\',
  quot: '"',
  lt: '<',
  gt: '>',
  apos: "'",
}

/** The test's own decoder: one layer of every escape kind, mixed. */
export function decodeOnce(s: string): string {
  return s.replace(
    /\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\([\\/"'nrtbf])|((?:%[0-9a-fA-F]{2})+)|&#[xX]([0-9a-fA-F]+);?|&#([0-9]+);?|&([A-Za-z]+);?/g,
    (all, u, x, short, pct, hx, dec, name) => {
      if (u) return String.fromCharCode(Number.parseInt(u, 16))
      if (x) return String.fromCharCode(Number.parseInt(x, 16))
      if (short) return ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[short] ?? short
      if (pct) {
        try {
          return decodeURIComponent(pct)
        } catch {
          return pct.replace(/%([0-9a-fA-F]{2})/g, (_: string, h: string) =>
            String.fromCharCode(Number.parseInt(h, 16)),
          )
        }
      }
      if (hx) return String.fromCodePoint(Number.parseInt(hx, 16))
      if (dec) return String.fromCodePoint(Number(dec))
      if (name && NAMED_BACK[name] !== undefined) return NAMED_BACK[name]
      return all
    },
  )
}

/** Every decoded form of `s` up to `depth` layers (with `+` read as itself and as a space). */
export function decodedForms(s: string, depth: number): string[] {
  const forms = [s]
  let current = s
  for (let i = 0; i < depth; i++) {
    current = decodeOnce(current)
    forms.push(current)
  }
  return forms.flatMap((f) => [f, f.replace(/\+/g, ' ')])
}

/** Whether `secret`, or its first or second half, is in any decoded form of `text` (up to `depth` layers). */
export function leaksIn(text: string, secret: string, depth = 4): boolean {
  const half = Math.floor(secret.length / 2)
  const pieces = [secret, secret.slice(0, half), secret.slice(half)]
  return decodedForms(text, depth).some((form) => pieces.some((piece) => form.includes(piece)))
}
