// Python value semantics the official TRAIL scorer relies on (truthiness, float(), int(), str.strip(),
// `in`, hashing), so the port fails, skips and casts exactly where calculate_scores.py does.

/** The Python exception a scorer step would raise; `type` decides which handler catches it. */
export class PyError extends Error {
  override readonly name = 'PyError'
  constructor(
    readonly type: 'ValueError' | 'TypeError' | 'OverflowError' | 'AttributeError' | 'KeyError' | 'IndexError',
    message: string,
  ) {
    super(`${type}: ${message}`)
  }
}

/** Characters `str.isspace()` accepts: what `str.strip()` removes and `float()`/`int()` tolerate. */
const PY_SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/
const PY_SPACE_RUN_START = new RegExp(`^${PY_SPACE.source}+`)
const PY_SPACE_RUN_END = new RegExp(`${PY_SPACE.source}+$`)

/**
 * Python `str.strip()` with no argument: Unicode whitespace by Python's definition, which differs
 * from `String.prototype.trim` (Python strips U+001C–U+001F and U+0085, keeps U+FEFF).
 *
 * @example
 * pyStrip('\x85Goal Deviation\ufeff') // 'Goal Deviation\ufeff'
 */
export function pyStrip(s: string): string {
  return s.replace(PY_SPACE_RUN_START, '').replace(PY_SPACE_RUN_END, '')
}

/** Python truthiness of a JSON value. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false
  if (typeof v === 'number') return v !== 0
  if (typeof v === 'string') return v.length > 0
  if (Array.isArray(v)) return v.length > 0
  if (typeof v === 'object') return Object.keys(v).length > 0
  return true
}

export function isPyDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float'
  if (typeof v === 'string') return 'str'
  return Array.isArray(v) ? 'list' : 'dict'
}

/** `obj.get(key, fallback)`; raises AttributeError when `obj` is not a dict, as Python would. */
export function pyGet(obj: unknown, key: string, fallback: unknown): unknown {
  if (!isPyDict(obj)) throw new PyError('AttributeError', `'${pyTypeName(obj)}' object has no attribute 'get'`)
  return Object.hasOwn(obj, key) ? obj[key] : fallback
}

/** `for x in v` over a JSON value: lists yield items, dicts their keys, strings their characters. */
export function pyIter(v: unknown): unknown[] {
  if (Array.isArray(v)) return v
  if (typeof v === 'string') return Array.from(v)
  if (isPyDict(v)) return Object.keys(v)
  throw new PyError('TypeError', `'${pyTypeName(v)}' object is not iterable`)
}

/** `v[0]` on a JSON value. */
export function pyFirst(v: unknown): unknown {
  if (Array.isArray(v) || typeof v === 'string') {
    if (v.length === 0) throw new PyError('IndexError', 'index out of range')
    return Array.isArray(v) ? v[0] : Array.from(v)[0]
  }
  if (isPyDict(v)) throw new PyError('KeyError', '0')
  throw new PyError('TypeError', `'${pyTypeName(v)}' object is not subscriptable`)
}

/** `key in container` for a string key. */
export function pyContains(container: unknown, key: string): boolean {
  if (isPyDict(container)) return Object.hasOwn(container, key)
  if (typeof container === 'string') return container.includes(key)
  if (Array.isArray(container)) return container.some((x) => x === key)
  throw new PyError('TypeError', `argument of type '${pyTypeName(container)}' is not iterable`)
}

/** `container[key]` for a string key. */
export function pyIndex(container: unknown, key: string): unknown {
  if (isPyDict(container)) {
    if (!Object.hasOwn(container, key)) throw new PyError('KeyError', key)
    return container[key]
  }
  throw new PyError('TypeError', `${pyTypeName(container)} indices must be integers or slices, not str`)
}

/**
 * A string key equal for values Python's set() treats as equal: `1 == 1.0 == True`, `-0.0 == 0`,
 * and every JSON `NaN` is the same float object. Lists and dicts are unhashable (TypeError).
 */
export function pyHashKey(v: unknown): string {
  if (typeof v === 'string') return `s${v}`
  if (typeof v === 'number') return `n${Number.isNaN(v) ? 'NaN' : String(v === 0 ? 0 : v)}`
  if (typeof v === 'boolean') return `n${v ? 1 : 0}`
  if (v === null || v === undefined) return 'None'
  throw new PyError('TypeError', `unhashable type: '${pyTypeName(v)}'`)
}

const ND = /\p{Nd}/u

/**
 * Python's `_PyUnicode_TransformDecimalAndSpaceToASCII` then the C-locale strip `float()`/`int()` do:
 * non-ASCII digits → ASCII, non-ASCII whitespace → ' ', ASCII kept (so U+001C–U+001F are *not* space here).
 */
function toAsciiNumeral(s: string): string {
  let out = ''
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    if (cp < 128) out += ch
    else if (PY_SPACE.test(ch)) out += ' '
    else if (ND.test(ch)) {
      // Nd characters come in runs of ten, 0..9 in order; the value is the offset within the run.
      let start = cp
      while (ND.test(String.fromCodePoint(start - 1))) start--
      out += String((cp - start) % 10)
    } else out += ch
  }
  return out.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '')
}

const DIGITS = '[0-9](?:_?[0-9])*'
const PY_FLOAT = new RegExp(`^[+-]?(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?)$`)
const PY_FLOAT_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i
const PY_INT = new RegExp(`^[+-]?${DIGITS}$`)

/**
 * Python `float(v)` for a JSON value: ValueError for unparseable strings, TypeError for lists/dicts.
 *
 * @example
 * pyFloat(' 1_000.5 ') // 1000.5
 */
export function pyFloat(v: unknown): number {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string') {
    const s = toAsciiNumeral(v)
    const special = PY_FLOAT_SPECIAL.exec(s)
    if (special) return special[2].toLowerCase() === 'nan' ? Number.NaN : special[1] === '-' ? -Infinity : Infinity
    if (PY_FLOAT.test(s)) return Number(s.replace(/_/g, ''))
    throw new PyError('ValueError', `could not convert string to float: ${JSON.stringify(v)}`)
  }
  throw new PyError('TypeError', `float() argument must be a string or a real number, not '${pyTypeName(v)}'`)
}

/**
 * Python `int(v)` for a JSON value: truncates floats, rejects "3.5", overflows on infinity.
 *
 * @example
 * pyInt(3.9) // 3
 * pyInt('3.5') // throws PyError ValueError
 */
export function pyInt(v: unknown): number {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new PyError('ValueError', 'cannot convert float NaN to integer')
    if (!Number.isFinite(v)) throw new PyError('OverflowError', 'cannot convert float infinity to integer')
    return Math.trunc(v) + 0
  }
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string') {
    const s = toAsciiNumeral(v)
    if (PY_INT.test(s)) return Number(s.replace(/_/g, '')) + 0
    throw new PyError('ValueError', `invalid literal for int() with base 10: ${JSON.stringify(v)}`)
  }
  throw new PyError(
    'TypeError',
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`,
  )
}
