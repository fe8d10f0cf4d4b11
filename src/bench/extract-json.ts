import { pyJsonLoads } from './py-json'

/** A prediction file from which the official scorer would get no JSON object; it skips such files. */
export class ExtractJsonError extends Error {
  override readonly name = 'ExtractJsonError'
}

/**
 * The official TRAIL scorer's `extract_json_from_text`: take the greedy `\{.*\}` match (DOTALL: first
 * `{` to last `}`), `json.loads` it, and on failure drop the last character and retry until a
 * prefix parses. So fences and prose around the JSON are tolerated and prose with braces after it
 * is trimmed off.
 *
 * Instead of retrying at every length (O(n²) on garbage), this retries only at prefixes that end
 * with `}`: the match starts with `{`, so any prefix that parses is an object and ends with `}` plus
 * optional JSON whitespace, and a prefix with trailing whitespace parses to the same value as the
 * prefix without it. The longest parsing prefix, hence the result, is therefore the same.
 *
 * @example
 * extractJsonFromText('Here:\n```json\n{"errors": []}\n```\nLet me know {if} you need more.') // { errors: [] }
 */
export function extractJsonFromText(text: string): Record<string, unknown> {
  const start = text.indexOf('{')
  const last = text.lastIndexOf('}')
  if (start < 0 || last < start) throw new ExtractJsonError('no JSON object in the prediction text (no "{" … "}")')
  const match = text.slice(start, last + 1)
  for (let end = match.length - 1; end > 0; end = match.lastIndexOf('}', end - 1)) {
    try {
      return pyJsonLoads(match.slice(0, end + 1)) as Record<string, unknown>
    } catch {
      // not valid JSON at this length; the official loop tries the next shorter prefix
    }
  }
  throw new ExtractJsonError('no prefix of the "{" … "}" span in the prediction text parses as JSON')
}
