// Python's json.loads: standard JSON plus the NaN / Infinity / -Infinity literals Python accepts
// (a judge reply holding them parses in the official scorer, so it must parse here too).

/**
 * Parse text the way Python's `json.loads` does: `JSON.parse` for standard JSON, and a small strict
 * parser that also accepts `NaN`, `Infinity` and `-Infinity` when the fast path fails.
 *
 * @example
 * pyJsonLoads('{"overall": NaN}') // { overall: NaN }
 */
export function pyJsonLoads(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err
    return new Parser(text).document()
  }
}

const WS = new Set([' ', '\t', '\n', '\r'])
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

class Parser {
  private i = 0
  constructor(private readonly s: string) {}

  document(): unknown {
    this.ws()
    const value = this.value()
    this.ws()
    if (this.i !== this.s.length) this.fail('Extra data')
    return value
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.i}`)
  }

  private ws(): void {
    while (this.i < this.s.length && WS.has(this.s[this.i])) this.i++
  }

  private literal(word: string, value: unknown): unknown {
    if (!this.s.startsWith(word, this.i)) this.fail('Expecting value')
    this.i += word.length
    return value
  }

  private value(): unknown {
    const c = this.s[this.i]
    if (c === '{') return this.object()
    if (c === '[') return this.array()
    if (c === '"') return this.string()
    if (c === 't') return this.literal('true', true)
    if (c === 'f') return this.literal('false', false)
    if (c === 'n') return this.literal('null', null)
    if (c === 'N') return this.literal('NaN', Number.NaN)
    if (c === 'I') return this.literal('Infinity', Infinity)
    NUMBER.lastIndex = this.i
    const m = NUMBER.exec(this.s)
    if (m) {
      this.i += m[0].length
      return Number(m[0])
    }
    if (this.s.startsWith('-Infinity', this.i)) return this.literal('-Infinity', -Infinity)
    return this.fail('Expecting value')
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    this.i++
    this.ws()
    if (this.s[this.i] === '}') {
      this.i++
      return out
    }
    for (;;) {
      if (this.s[this.i] !== '"') this.fail('Expecting property name enclosed in double quotes')
      const key = this.string()
      this.ws()
      if (this.s[this.i] !== ':') this.fail("Expecting ':' delimiter")
      this.i++
      this.ws()
      // defineProperty keeps "__proto__" an ordinary key, as JSON.parse does.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true })
      this.ws()
      const c = this.s[this.i++]
      if (c === '}') return out
      if (c !== ',') this.fail("Expecting ',' delimiter")
      this.ws()
    }
  }

  private array(): unknown[] {
    const out: unknown[] = []
    this.i++
    this.ws()
    if (this.s[this.i] === ']') {
      this.i++
      return out
    }
    for (;;) {
      out.push(this.value())
      this.ws()
      const c = this.s[this.i++]
      if (c === ']') return out
      if (c !== ',') this.fail("Expecting ',' delimiter")
      this.ws()
    }
  }

  private string(): string {
    let out = ''
    this.i++
    for (;;) {
      const c = this.s[this.i++]
      if (c === undefined) this.fail('Unterminated string')
      if (c === '"') return out
      if (c < ' ') this.fail('Invalid control character')
      if (c !== '\\') {
        out += c
        continue
      }
      const e = this.s[this.i++]
      if (e === 'u') {
        const hex = this.s.slice(this.i, this.i + 4)
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('Invalid \\uXXXX escape')
        out += String.fromCharCode(parseInt(hex, 16))
        this.i += 4
      } else if (e !== undefined && e in ESCAPES) out += ESCAPES[e]
      else this.fail('Invalid \\escape')
    }
  }
}
