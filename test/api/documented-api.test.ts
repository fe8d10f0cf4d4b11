// The main entry exports only what the docs document: every name in api-report/agent-verdict.api.txt
// (checked against src/index.ts by public-api.test.ts) is named in docs/api.md, "API of the main entry".
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const apiDoc = readFileSync(`${root}docs/api.md`, 'utf8')

/** The guide's section from its title (`# heading`) to its end, or from a `## heading` to the next one. */
function section(heading: string): string {
  if (apiDoc.startsWith(`# ${heading}\n`)) return apiDoc
  const start = apiDoc.indexOf(`\n## ${heading}\n`)
  if (start < 0) throw new Error(`docs/api.md has no "${heading}" section`)
  const end = apiDoc.indexOf('\n## ', start + 1)
  return apiDoc.slice(start, end < 0 ? undefined : end)
}

/** Identifiers written in backticks, alone or as the callee of a call (`loadTrace(input, …)`). */
function documentedNames(text: string): Set<string> {
  return new Set([...text.matchAll(/`([A-Za-z_$][\w$]*)[`(]/g)].map((m) => m[1]))
}

test('every export of the main entry is documented in docs/api.md', () => {
  const report = readFileSync(`${root}api-report/agent-verdict.api.txt`, 'utf8')
  const exported = report
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => line.slice(0, line.indexOf(':')))
  expect(exported.length).toBeGreaterThan(100) // the report was read (so the check below is not vacuous)
  const documented = documentedNames(section('API of the main entry'))
  expect(exported.filter((name) => !documented.has(name))).toEqual([])
})

test('only whole names count, and internals are not in the section', () => {
  expect(documentedNames('`loadTrace(input)`, `Trace` and `trace.find`')).toEqual(new Set(['loadTrace', 'Trace']))
  const documented = documentedNames(section('API of the main entry'))
  for (const internal of ['withRetry', 'scrubSecrets', 'AdaptiveLimiter', 'parseRetryAfter', 'cassetteKey'])
    expect(documented.has(internal)).toBe(false)
})
