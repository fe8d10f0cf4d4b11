// `agent-verdict diagnose` with a judge: the fake judge server stands in for the model (scripted
// verdicts, not accuracy), through the real OpenAI client the CLI builds from --judge.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { diagnoseCommand } from '../../src/cli/diagnose'
import { DiagnoseReportSchema } from '../../src/diagnosis/diagnose-report'
import { parseBudget, parsePolicy, parseSelect } from '../../src/cli/diagnose-options'
import { canonicalView } from '../../src/diagnosis/canonical'
import { detect } from '../../src/metrics/detectors/index'
import { loadTrace } from '../../src/trace/load'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { FIXTURE_DIR } from '../helpers/trail'

const GAIA = join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json')
// The SWE fixture with the model's "It seems …" admissions reworded: the self-reported-failure detector
// names them (one is a gold Formatting Error), and these tests need a run that no detector flags.
const SWE = withoutAdmissions(join(FIXTURE_DIR, '72822db6e120878d916b515c2501246b.json'))

function withoutAdmissions(path: string): string {
  const copy = join(mkdtempSync(join(tmpdir(), 'diagnose-swe-')), '72822db6e120878d916b515c2501246b.json')
  writeFileSync(copy, readFileSync(path, 'utf8').replaceAll('It seems', 'I think'))
  return copy
}

function sink(isTTY = false) {
  let text = ''
  return { stream: { write: (chunk: string) => ((text += chunk), true), isTTY }, text: () => text }
}

async function run(args: string[], options: { tty?: boolean } = {}) {
  const out = sink()
  const err = sink(options.tty)
  const code = await diagnoseCommand(args, { stdout: out.stream, stderr: err.stream })
  return { code, stdout: out.text(), stderr: err.text() }
}

let fake: FakeJudge
let spec: string
beforeAll(async () => {
  fake = await startFakeJudge({})
  spec = `openai-compatible:${fake.baseURL}#fake`
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.reset()
  fake.setRules([])
})

describe('agent-verdict diagnose --judge', () => {
  test('prints progress on stderr, the judge findings after the tree, and the cost line', async () => {
    // Fail one LLM span the detectors do not already explain (those are not judged by default).
    const trace = await loadTrace(GAIA)
    const explained = new Set(detect(trace).map((f) => f.spanId))
    const target = trace.spansByKind('llm').find((s) => !explained.has(s.id))!
    fake.setRules([
      {
        when: { contains: `<span>\nposition: ${canonicalView(trace).position(target.id)}\n` },
        respond: {
          verdict: 'fail',
          reason: 'no verification of the reversed text',
          fields: { error_category: 'Language-only' },
        },
      },
    ])
    const { code, stdout, stderr } = await run([GAIA, '--judge', spec])
    expect(code).toBe(1)
    expect(stderr).toMatch(/^judged 1\/\d+ spans…$/m)
    expect(stderr).toMatch(/^agent-level pass 1\/1…$/m)
    expect(stdout).toContain('failing spans (policy existential):')
    expect(stdout).toContain('✗ Language-only: (judge) no verification of the reversed text')
    // Lines are wrapped to 80 columns when piped: join them back to read the sentence.
    const unwrapped = stdout.replace(/\n {4,}(?=\S)/g, ' ')
    expect(unwrapped).toContain(
      `(id ${target.id}, path ${trace.path(target.id).join(' › ')}) — Language-only (instruction following 1/5): no verification of the reversed text`,
    )
    for (const line of stdout.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80)
    expect(stdout).toMatch(/^ {2}✓ plan efficiency 5\/5: /m)
    expect(unwrapped).toMatch(
      /^ {2}verdict: fail — \d+ failing spans? found by the judge and the detectors under the existential policy/m,
    )
    const last = stdout
      .trimEnd()
      .replace(/\n {2}(?=\S)/g, ' ')
      .split('\n')
      .at(-1)!
    expect(last).toMatch(
      /^judge openai-compatible:fake: (\d+) calls \(0 replayed\), [\d,]+ tokens \([\d,]+ in \/ [\d,]+ out\), cost n\/a; largest prompt [\d,]+ tokens \(budget 16,000\)$/,
    )
    expect(Number(/: (\d+) calls/.exec(last)![1])).toBe(fake.calls.length)
  })

  test('the cost line counts every request that reached the judge: a retried call is two', async () => {
    fake.setFaults([{ type: 'rate-limit', times: 2, retryAfter: '0' }])
    try {
      const { stdout } = await run([GAIA, '--judge', spec])
      const last = stdout
        .trimEnd()
        .replace(/\n {2}(?=\S)/g, ' ')
        .split('\n')
        .at(-1)!
      expect(fake.stats.byStatus[429]).toBe(2)
      // The fake answers diagnose's context probe (GET /props, POST /api/show) with 404s: not judge calls.
      expect(Number(/: (\d+) calls/.exec(last)![1])).toBe(fake.stats.requests - (fake.stats.byStatus[404] ?? 0))
    } finally {
      fake.setFaults([])
    }
  })

  test('on a terminal, progress is one updating line that is cleared at the end', async () => {
    const { stderr } = await run([SWE, '--judge', spec, '--no-agent'], { tty: true })
    expect(stderr).toContain('\r\u001b[2Kjudged 1/6 spans…')
    expect(stderr).toContain('\r\u001b[2Kjudged 6/6 spans…')
    expect(stderr.endsWith('\r\u001b[2K')).toBe(true)
    expect(stderr).not.toContain('agent-level')
  })

  test('--format json carries the diagnosis per trace; --budget, --select and --policy reach it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diagnose-judge-'))
    const out = join(dir, 'report.json')
    const { code, stdout, stderr } = await run([
      SWE,
      '--judge',
      spec,
      '--format',
      'json',
      '--json',
      out,
      '--budget',
      '5000',
      '--select',
      'llm',
      '--policy',
      'threshold:0.3',
      '--no-agent',
    ])
    expect(code).toBe(0)
    const report = DiagnoseReportSchema.parse(JSON.parse(stdout))
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(report)
    const d = report.traces[0].diagnosis!
    expect(d).toMatchObject({
      mode: 'judge',
      judge: 'openai-compatible:fake',
      policy: { type: 'threshold', threshold: 0.3 },
      stats: { budgetTokens: 5000, spansJudged: 6 },
    })
    expect(d.stats.maxPromptTokens).toBeLessThanOrEqual(5000)
    expect(Math.max(...fake.calls.map((c) => c.usage!.prompt_tokens))).toBeLessThanOrEqual(5000)
    expect(d.agent.verdicts).toEqual([])
    expect(report.judge).toMatchObject({
      configured: true,
      skipped: ['agent.plan_efficiency', 'agent.tool_coverage', 'agent.tool_abuse', 'agent.completeness'],
    })
    expect(stderr.trimEnd().split('\n').at(-1)).toBe(report.judge.message)
  })

  test('--select none judges no span: only the agent-level pass calls the judge', async () => {
    const { code, stdout, stderr } = await run([SWE, '--judge', spec, '--select', 'none', '--format', 'json'])
    expect(stderr).not.toMatch(/judged \d+\/\d+ spans/)
    const d = DiagnoseReportSchema.parse(JSON.parse(stdout)).traces[0].diagnosis!
    expect(d.stats).toMatchObject({ spansSelected: 0, spansJudged: 0 })
    expect(d.spans.flatMap((s) => s.verdicts).filter((v) => v.judge !== undefined)).toEqual([])
    expect(d.agent.verdicts.map((v) => v.metric)).toEqual([
      'agent.plan_efficiency',
      'agent.tool_coverage',
      'agent.tool_abuse',
      'agent.completeness',
    ])
    expect(fake.calls.length).toBeGreaterThan(0)
    expect(fake.calls.every((c) => !c.prompt.includes('<span>\nposition: '))).toBe(true) // no span prompt
    expect(code).toBe(d.verdict.pass && detect(await loadTrace(SWE)).length === 0 ? 0 : 1)
  })

  test('AGENT_VERDICT_JUDGE configures the judge when --judge is absent', async () => {
    const before = process.env.AGENT_VERDICT_JUDGE
    process.env.AGENT_VERDICT_JUDGE = spec
    try {
      const { stdout } = await run([SWE, '--no-agent'])
      expect(stdout).toMatch(/^judge openai-compatible:fake: 6 calls/m)
      expect(fake.calls).toHaveLength(6)
    } finally {
      if (before === undefined) delete process.env.AGENT_VERDICT_JUDGE
      else process.env.AGENT_VERDICT_JUDGE = before
    }
  })

  test.each([
    [['--judge', 'nonsense:x'], /--judge "nonsense:x" is invalid: unknown provider "nonsense"/],
    [['--policy', 'majority'], /--policy must be existential, threshold:T or category:A,B/],
    [['--policy', 'category:Speling Errors'], /unknown: Speling Errors/],
    [['--budget', '100'], /--budget must be a whole number of tokens ≥ 4000/],
    [['--select', 'llm,span'], /--select takes span kinds/],
  ])('bad option %j exits 2 with what is accepted', async (extra, message) => {
    const { code, stderr } = await run([SWE, ...extra])
    expect(code).toBe(2)
    expect(stderr).toMatch(message)
    expect(fake.calls).toHaveLength(0)
  })
})

describe('option parsing', () => {
  test('policies, selections and budgets as the CLI spells them', () => {
    expect(parsePolicy('existential')).toBe('existential')
    expect(parsePolicy('threshold:0.25')).toEqual({ type: 'threshold', threshold: 0.25 })
    expect(parsePolicy('category:rate limiting, Service Errors')).toEqual({
      type: 'category',
      categories: ['Rate Limiting', 'Service Errors'],
    })
    expect(() => parsePolicy('threshold:1')).toThrow(/0 ≤ T < 1/)
    expect(parseSelect('LLM, tool')).toEqual({ kind: ['llm', 'tool'] })
    expect(parseSelect(' None ')).toEqual({ kind: [] })
    expect(() => parseSelect('none,llm')).toThrow(/or none for the agent-level metrics only, not "none,llm"/)
    expect(parseBudget('16000')).toBe(16000)
    expect(() => parseBudget('16k')).toThrow(/whole number/)
  })
})
