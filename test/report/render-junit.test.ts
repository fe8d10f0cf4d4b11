import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { describe, expect, it } from 'vitest'
import { buildReport, readReport, writeReport } from '../../src/report/artifact'
import { publishReport } from '../../reporters/publish'
import { escapeXmlAttribute, escapeXmlText, renderJunit } from '../../src/report/render-junit'
import { reportCommand } from '../../src/cli/report'
import type { ReportTest } from '../../src/verdict/report'
import { outputVerdicts, sampleTests } from './cases'

const report = (tests: ReportTest[]) =>
  buildReport({
    tests,
    startedAt: '2026-03-01T10:00:00Z',
    runner: 'vitest',
    judge: 'openai:gpt-4.1-mini',
    mode: 'replay',
  })

/** Parses with a real XML parser after checking the text is well-formed; lists are always arrays. */
function parse(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true)
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    htmlEntities: true,
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  })
  return parser.parse(xml) as {
    testsuites: {
      tests: string
      failures: string
      skipped: string
      testsuite: Array<{
        name: string
        tests: string
        failures: string
        properties: { property: Array<{ name: string; value: string }> }
        testcase: Array<{
          classname: string
          name: string
          time: string
          properties?: { property: Array<{ name: string; value: string }> }
          failure?: { message: string; type: string; '#text': string }
          skipped?: unknown
          'system-out'?: string
        }>
      }>
    }
  }
}

describe('renderJunit', () => {
  it('gives a suite per file and a case per test, each verdict a property and a line of system-out', () => {
    const doc = parse(renderJunit(report(sampleTests())))
    expect(doc.testsuites).toMatchObject({ tests: '3', failures: '3', skipped: '0' })
    const suites = doc.testsuites.testsuite
    expect(suites.map((s) => s.name)).toEqual(['test/chart.test.ts', 'test/agent.test.ts', 'test/trail.test.ts'])
    expect(suites[0].properties.property).toEqual([
      { name: 'agent-verdict.judge', value: 'openai:gpt-4.1-mini' },
      { name: 'agent-verdict.mode', value: 'replay' },
      // The run's totals, the same numbers every other output shows, as plain numbers (never "4,280").
      { name: 'agent-verdict.tests', value: '3' },
      { name: 'agent-verdict.failed-tests', value: '3' },
      { name: 'agent-verdict.assertions', value: '4' },
      { name: 'agent-verdict.failed', value: '3' },
      { name: 'agent-verdict.verdicts', value: '9' },
      { name: 'agent-verdict.judged-fail', value: '7' },
      { name: 'agent-verdict.unjudgeable', value: '1' },
      { name: 'agent-verdict.judge-calls', value: '2' },
      { name: 'agent-verdict.judge-retries', value: '0' },
      { name: 'agent-verdict.judge-reasks', value: '0' },
      { name: 'agent-verdict.replayed', value: '1' },
      { name: 'agent-verdict.tokens', value: '4280' },
      { name: 'agent-verdict.cost', value: '0.00061' },
    ])
    const chart = suites[0].testcase[0]
    expect(chart).toMatchObject({
      classname: 'test/chart.test.ts',
      name: 'chart answer is grounded in the chart',
      time: '1.234',
    })
    expect(chart.properties!.property).toEqual([
      {
        name: 'verdict faithfulness',
        value: 'fail 2/5, min 3.4: The answer cites a 2019 figure that the chart does not contain.',
      },
      { name: 'verdict instruction-following', value: 'pass 1/1, min 0.5: States the region and the dollar amount.' },
    ])
    expect(chart.failure).toMatchObject({ message: 'AssertionError: faithfulness 0.25 < 0.60', type: 'AssertionError' })
    expect(chart.failure!['#text']).toBe(
      'AssertionError: faithfulness 0.25 < 0.60\n✗ faithfulness output 2/5, min 3.4: The answer cites a 2019 figure that the chart does not contain.',
    )
    expect(chart['system-out']!.split('\n')).toHaveLength(2)
    // An unjudgeable verdict fails the test and says why, without a score.
    const agent = suites[1].testcase[0]
    expect(agent.properties!.property).toEqual([
      { name: 'verdict plan-efficiency', value: 'unjudgeable n/a: judge output malformed after 3 attempts' },
    ])
    expect(agent.failure!.message).toBe('? plan-efficiency agent unjudgeable: judge output malformed after 3 attempts')
    // Span verdicts name the span by id in the property, by kind, name and path in the text.
    const trail = suites[2].testcase[0]
    expect(trail.properties!.property).toHaveLength(sampleTests()[2].verdicts.length)
    expect(trail.properties!.property[0].name).toMatch(/^verdict trail-gold \[[A-Za-z -]+\] span [0-9a-f]{16}$/)
    expect(trail['system-out']).toMatch(
      /^✗ trail-gold \[Authentication Errors\] span tool:VisitTool \(id ee7608b3…, path main › … › ToolCallingAgent\.run › Step 4 › VisitTool\) 0\/1, min 0\.5: /m,
    )
  })

  it('a passing .not is no failure and says what the judge found; a failing .not is in <failure>', () => {
    const [judgedFail, judgedPass] = outputVerdicts()
    const not = (passed: boolean) => ({
      id: 'toBeFaithfulToImage#1',
      matcher: 'toBeFaithfulToImage',
      negated: true,
      passed,
    })
    const doc = parse(
      renderJunit(
        report([
          { file: 'a.test.ts', name: 'green', state: 'pass', verdicts: [{ ...judgedFail, assertion: not(true) }] },
          {
            file: 'a.test.ts',
            name: 'red',
            state: 'fail',
            error: 'AssertionError: x',
            verdicts: [{ ...judgedPass, assertion: not(false) }],
          },
        ]),
      ),
    )
    const [green, red] = doc.testsuites.testsuite[0].testcase
    expect(green.failure).toBeUndefined()
    expect(green['system-out']).toBe(
      '✓ faithfulness output 2/5, min 3.4 (judged fail, expected not): The answer cites a 2019 figure that the chart does not contain.',
    )
    expect(green.properties!.property[0].value).toBe(
      'fail (expected not: assertion passed) 2/5, min 3.4: The answer cites a 2019 figure that the chart does not contain.',
    )
    expect(red.failure!['#text']).toBe(
      'AssertionError: x\n✗ instruction-following output 1/1, min 0.5 (judged pass, expected not): States the region and the dollar amount.',
    )
    expect(doc.testsuites.testsuite[0].properties.property).toContainEqual({ name: 'agent-verdict.failed', value: '1' })
  })

  it('marks skipped and pending tests, and writes a passing test without failure', () => {
    const pass = outputVerdicts()[1]
    const doc = parse(
      renderJunit(
        report([
          { file: 'a.test.ts', name: 'passes', state: 'pass', durationMs: 5, verdicts: [pass] },
          { file: 'a.test.ts', name: 'skipped', state: 'skip', verdicts: [pass] },
          { file: 'a.test.ts', name: 'todo', state: 'pending', verdicts: [pass] },
        ]),
      ),
    )
    expect(doc.testsuites).toMatchObject({ tests: '3', failures: '0', skipped: '2' })
    const [passes, skipped, todo] = doc.testsuites.testsuite[0].testcase
    expect(passes.failure).toBeUndefined()
    expect(passes.skipped).toBeUndefined()
    expect(skipped.skipped).toBe('')
    expect(todo.skipped).toEqual({ message: 'pending' })
  })

  it('keeps any reason readable: markup, quotes, newlines, control characters and lone surrogates', () => {
    const nasty = 'a <b> & "c" \'d\' ]]> e\nf\tg\u0000h\u001bi\ud800j 😀'
    const xml = renderJunit(
      report([
        {
          file: 'x"&<.test.ts',
          name: 'name with ]]> and\nnewline',
          state: 'fail',
          error: `\u001b[31mAssertionError\u001b[39m: ${nasty}`,
          verdicts: [{ ...outputVerdicts()[0], reason: nasty, metric: 'm<&>' }],
        },
      ]),
    )
    const doc = parse(xml)
    const suite = doc.testsuites.testsuite[0]
    expect(suite.name).toBe('x"&<.test.ts')
    const tc = suite.testcase[0]
    // Attribute newlines survive as character references; the text keeps the reason whole.
    expect(tc.name).toBe('name with ]]> and\nnewline')
    expect(tc.properties!.property[0]).toEqual({
      name: 'verdict m<&>',
      value: 'fail 2/5, min 3.4: a <b> & "c" \'d\' ]]> e f g\ufffdh\ufffdi\ufffdj 😀',
    })
    expect(tc.failure!.message).toBe('AssertionError: a <b> & "c" \'d\' ]]> e')
    expect(tc.failure!['#text']).toContain('a <b> & "c" \'d\' ]]> e\nf\tg\ufffdh\ufffdi\ufffdj 😀')
  })

  it('escapes text and attributes for XML', () => {
    expect(escapeXmlText('a<b>&c]]>\u0007')).toBe('a&lt;b&gt;&amp;c]]&gt;\ufffd')
    expect(escapeXmlAttribute('"x"\n\ty\r')).toBe('&quot;x&quot;&#10;&#9;y&#13;')
  })
})

describe('JUnit output from the reporter and the CLI', () => {
  it('the reporter writes it when `junit` names a file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'av-junit-'))
    let said = ''
    const result = await publishReport({
      tests: sampleTests(),
      startedAt: new Date(),
      runner: 'vitest',
      root,
      options: { junit: 'reports/junit.xml' },
      out: { write: (s: string) => (said += s) },
      env: {},
    })
    expect(result.junitPath).toBe(join(root, 'reports/junit.xml'))
    expect(said).toContain('agent-verdict: JUnit XML written to ')
    expect(parse(readFileSync(result.junitPath!, 'utf8')).testsuites.tests).toBe('3')
  })

  it('`agent-verdict report junit` converts an artifact, and says what to do with a wrong argument count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-junit-cli-'))
    const artifact = await writeReport(join(dir, 'agent-verdict-report.json'), report(sampleTests()))
    const out = join(dir, 'junit.xml')
    let stdout = ''
    let stderr = ''
    const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } }
    expect(await reportCommand(['junit', artifact, '--out', out], io)).toBe(0)
    expect(stdout).toBe(`wrote ${out} (3 tests, 9 verdicts)\n`)
    expect(readFileSync(out, 'utf8')).toBe(renderJunit(await readReport(artifact)))
    expect(await reportCommand(['junit', artifact, artifact], io)).toBe(2)
    expect(stderr).toContain('junit takes exactly one report file (merge shards first)')
    // An unreadable input is an input error: exit 2 (docs/cli.md's exit-code table), never 1 (= findings).
    expect(await reportCommand(['junit', join(dir, 'missing.json')], io)).toBe(2)
  })
})
