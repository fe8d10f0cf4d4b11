/** An asymmetric matcher of either runner (`expect.any(String)`, `expect.stringContaining('x')` …). */
interface AsymmetricLike {
  asymmetricMatch(other: unknown): boolean
}

const isAsymmetric = (v: unknown): v is AsymmetricLike =>
  v !== null && typeof v === 'object' && typeof (v as Partial<AsymmetricLike>).asymmetricMatch === 'function'

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)

/**
 * True when `actual` contains `expected`: objects match on the keys `expected` names (recursively),
 * arrays element by element with the same length, a RegExp tests a string, asymmetric matchers of
 * Vitest or Jest decide for themselves, anything else compares with `Object.is`. A JSON string
 * `actual` is parsed first when `expected` is an object or array (tool arguments often arrive unparsed).
 *
 * @example
 * matchesPartially({ query: 'capital of France', limit: 5 }, { query: /france/i }) // true
 * matchesPartially('{"order_id":"A-1042"}', { order_id: 'A-1042' })                // true
 */
export function matchesPartially(actual: unknown, expected: unknown): boolean {
  if (isAsymmetric(expected)) return expected.asymmetricMatch(actual)
  if (expected instanceof RegExp) return typeof actual === 'string' && expected.test(actual)
  if (typeof actual === 'string' && (isPlainObject(expected) || Array.isArray(expected))) {
    const parsed = tryJson(actual)
    return parsed !== undefined && matchesPartially(parsed, expected)
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => matchesPartially(actual[i], e))
    )
  }
  if (isPlainObject(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
    const record = actual as Record<string, unknown>
    return Object.keys(expected).every((k) =>
      expected[k] === undefined ? record[k] === undefined : k in record && matchesPartially(record[k], expected[k]),
    )
  }
  return Object.is(actual, expected)
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
