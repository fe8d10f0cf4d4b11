// JUnit XML from the report artifact, for CI systems that read test results as JUnit (GitLab, Jenkins,
// Azure DevOps, CircleCI, the test-reporter actions): a testsuite per test file, a testcase per test with
// verdicts, each verdict a <property> and a line of <system-out>, failing verdicts in the <failure> text.
import type { Report, ReportTest, ReportTotals } from '../verdict/report'
import { assertionStatus, judgedNote } from '../verdict/assertion'
import { oneLineExcerpt } from '../verdict/text'
import type { Verdict } from '../verdict/verdict'
import { describeSpan, formatScoreVsThreshold, indexSpans, OUTCOME_SYMBOL, spanPath, stripAnsi } from './format'

export const DEFAULT_JUNIT_FILE = 'agent-verdict-junit.xml'

/** Longest reason kept in a property value (the <system-out> and <failure> texts keep it whole). */
const MAX_PROPERTY_REASON = 1000
/** Longest `message` attribute of a <failure>: CI tables show it on one line. */
const MAX_FAILURE_MESSAGE = 300

// XML 1.0 allows tab, newline, carriage return and these ranges; anything else (other control characters,
// lone surrogates, U+FFFE/U+FFFF) makes the file unreadable, so it becomes U+FFFD.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu

/** Text content: `&`, `<`, `>` escaped (so `]]>` cannot appear), characters XML forbids replaced. */
export function escapeXmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** An attribute value in double quotes: also `"`, and tab/newline/CR as references (parsers turn raw ones into spaces). */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
}

function attrs(values: Record<string, string | number | undefined>): string {
  let out = ''
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) out += ` ${name}="${escapeXmlAttribute(String(value))}"`
  return out
}

const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3)

/** Where a verdict applies, in words: the span (kind, name, id, path) for span-level verdicts whose trace is known. */
function placeOf(test: ReportTest, v: Verdict): string {
  if (v.level !== 'span' || v.spanId === undefined) return v.level
  for (const trace of test.traces ?? []) {
    const index = indexSpans(trace)
    const span = index.get(v.spanId)
    if (span) return `span ${describeSpan(span, spanPath(trace, span.id, index))}`
  }
  return `span ${v.spanId}`
}

/** `metric [category]`: what the property is named after. */
function verdictName(v: Verdict): string {
  return v.category ? `${v.metric} [${v.category}]` : v.metric
}

/** `✗ faithfulness output 2/5, min 4: The answer cites …` — one line per verdict, reason whole; the symbol is the assertion's. */
function verdictLine(test: ReportTest, v: Verdict): string {
  const score = v.outcome === 'unjudgeable' ? 'unjudgeable' : formatScoreVsThreshold(v)
  const note = judgedNote(v) ? ` (${judgedNote(v)})` : ''
  return `${OUTCOME_SYMBOL[assertionStatus(v)]} ${verdictName(v)} ${placeOf(test, v)} ${score}${note}: ${oneLineExcerpt(v.reason)}`
}

function property(_test: ReportTest, v: Verdict): string {
  const score = v.outcome === 'unjudgeable' ? 'n/a' : formatScoreVsThreshold(v)
  const where = v.level === 'span' && v.spanId !== undefined ? ` span ${v.spanId}` : ''
  const outcome = judgedNote(v)
    ? `${v.outcome} (expected not: assertion ${assertionStatus(v) === 'pass' ? 'passed' : 'failed'})`
    : v.outcome
  const value = `${outcome} ${score}: ${oneLineExcerpt(v.reason, MAX_PROPERTY_REASON)}`
  return `        <property${attrs({ name: `verdict ${verdictName(v)}${where}`, value })}/>\n`
}

function testcase(test: ReportTest): string {
  const lines = test.verdicts.map((v) => verdictLine(test, v))
  const failing = test.verdicts.filter((v) => assertionStatus(v) !== 'pass')
  let body = ''
  if (test.verdicts.length > 0)
    body += `      <properties>\n${test.verdicts.map((v) => property(test, v)).join('')}      </properties>\n`
  if (test.state === 'fail') {
    const error = test.error ? stripAnsi(test.error).trim() : ''
    const first = error.split('\n')[0] || (failing[0] ? verdictLine(test, failing[0]) : 'test failed')
    const text = [error, ...failing.map((v) => verdictLine(test, v))].filter(Boolean).join('\n')
    body += `      <failure${attrs({ message: oneLineExcerpt(first, MAX_FAILURE_MESSAGE), type: 'AssertionError' })}>${escapeXmlText(text)}</failure>\n`
  } else if (test.state === 'skip' || test.state === 'pending') {
    body += `      <skipped${attrs({ message: test.state === 'pending' ? 'pending' : undefined })}/>\n`
  }
  if (lines.length > 0) body += `      <system-out>${escapeXmlText(lines.join('\n'))}</system-out>\n`
  const open = `    <testcase${attrs({ classname: test.file, name: test.name, time: seconds(test.durationMs) })}`
  return body === '' ? `${open}/>\n` : `${open}>\n${body}    </testcase>\n`
}

interface Counts {
  tests: number
  failures: number
  skipped: number
  ms: number
}

function count(tests: readonly ReportTest[]): Counts {
  const c: Counts = { tests: tests.length, failures: 0, skipped: 0, ms: 0 }
  for (const t of tests) {
    if (t.state === 'fail') c.failures++
    else if (t.state === 'skip' || t.state === 'pending') c.skipped++
    c.ms += t.durationMs ?? 0
  }
  return c
}

/** Every total as a plain number (`cost`: US dollars, or `unknown`), named as the other outputs label it. */
function totalsProperties(t: ReportTotals): Array<[string, string]> {
  return [
    ['tests', String(t.tests)],
    ['failed-tests', String(t.failedTests)],
    ['assertions', String(t.assertions)],
    ['failed', String(t.failed)],
    ['verdicts', String(t.verdicts)],
    ['judged-fail', String(t.judgedFail)],
    ['unjudgeable', String(t.unjudgeable)],
    ['judge-calls', String(t.judgeCalls)],
    ['judge-retries', String(t.judgeRetries)],
    ['judge-reasks', String(t.judgeReasks)],
    ['replayed', String(t.cachedCalls)],
    ['tokens', String(t.tokens)],
    ['cost', t.costUsd === null ? 'unknown' : String(t.costUsd)],
  ]
}

/**
 * The report as JUnit XML: one `<testsuite>` per test file (in the report's order), one `<testcase>` per
 * test in the report (the tests that used agent-verdict and failed evaluations; the runner's own JUnit reporter lists the rest),
 * each verdict a `<property name="verdict <metric> [<category>][ span <id>]" value="<outcome> <score>:
 * <reason>">` and a line of `<system-out>`; a failing test's `<failure>` holds its error and its failing
 * verdicts. The judge and cassette mode are suite properties.
 *
 * @example
 * await writeFile('agent-verdict-junit.xml', renderJunit(await readReport('agent-verdict-report.json')))
 */
export function renderJunit(report: Report): string {
  const byFile = new Map<string, ReportTest[]>()
  for (const t of report.tests) {
    const list = byFile.get(t.file)
    if (list) list.push(t)
    else byFile.set(t.file, [t])
  }
  const all = count(report.tests)
  const runProps =
    `      <property${attrs({ name: 'agent-verdict.judge', value: report.run.judge ?? 'none' })}/>\n` +
    `      <property${attrs({ name: 'agent-verdict.mode', value: report.run.mode })}/>\n` +
    // The run's totals (computed once, in the artifact) as plain numbers: CI tools read these values, and
    // the terminal's thousands separators ("4,972") read as text there.
    totalsProperties(report.run.totals)
      .map(([k, v]) => `      <property${attrs({ name: `agent-verdict.${k}`, value: v })}/>\n`)
      .join('')
  let xml = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs({ name: 'agent-verdict', tests: all.tests, failures: all.failures, errors: 0, skipped: all.skipped, time: seconds(all.ms) })}>\n`
  for (const [file, tests] of byFile) {
    const c = count(tests)
    xml += `  <testsuite${attrs({ name: file, tests: c.tests, failures: c.failures, errors: 0, skipped: c.skipped, time: seconds(c.ms), timestamp: report.run.startedAt })}>\n`
    xml += `    <properties>\n${runProps}    </properties>\n`
    for (const t of tests) xml += testcase(t)
    xml += '  </testsuite>\n'
  }
  return `${xml}</testsuites>\n`
}
