// The main entry exports only what the README documents: every name in api-report/agent-verdict.api.txt
// (checked against src/index.ts by public-api.test.ts) is named in the README's "API of the main entry".
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const readme = readFileSync(`${root}README.md`, 'utf8')

/** The README section from its heading to the next `## ` heading. */
function section(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`)
  if (start < 0) throw new Error(`README has no "## ${heading}" section`)
  const end = readme.indexOf('\n## ', start + 1)
  return readme.slice(start, end < 0 ? undefined : end)
}

/** Identifiers written in backticks, alone or as the callee of a call (`loadTrace(input, …)`). */
function documentedNames(text: string): Set<string> {
  return new Set([...text.matchAll(/`([A-Za-z_$][\w$]*)[`(]/g)].map((m) => m[1]))
}

test('every export of the main entry is documented in the README API section', () => {
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
