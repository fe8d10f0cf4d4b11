// Behaviour detectors on real TRAIL runs: the repo's fixtures (plain clone) and, when present, every shared trace.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  agentRuns,
  codeCalls,
  isFinalAnswer,
  lastInputMessage,
  outputText,
  splitThoughtAndCode,
  stepCalls,
} from '../../../src/metrics/detectors/agent-run'
import { announcedNotCalled } from '../../../src/metrics/detectors/announced-call'
import { factsSurvey } from '../../../src/metrics/detectors/answer-without-lookup'
import { detect } from '../../../src/metrics/detectors/index'
import type { Finding } from '../../../src/metrics/detectors/finding'
import { parseTrace } from '../../../src/trace/parse'
import type { Trace } from '../../../src/trace/trace'
import { FIXTURE_DIR } from '../../helpers/trail'
import { allTrailTraces, HAVE_TRAIL, spanText, trailTrace } from './trail'

const BEHAVIOR_FIXTURES = fileURLToPath(new URL('../../fixtures/trail-behavior', import.meta.url))

function load(dir: string, name: string): Trace {
  const file = join(dir, name)
  return parseTrace(readFileSync(file, 'utf8'), file)
}

const by = (findings: Finding[], detector: string) => findings.filter((f) => f.detector === detector)

/** The model call of the step whose final-answer tool ran first in the run's top agent. */
function answeringCall(trace: Trace) {
  const run = agentRuns(trace)[0]
  for (const step of run.steps) {
    const { llm, calls } = stepCalls(trace, step)
    if (calls.some(isFinalAnswer)) return { run, llm: llm!, calls }
  }
  throw new Error(`no final answer in ${trace.traceId}`)
}

describe('answer-without-lookup on the repo fixtures', () => {
  it('flags a run that answers in its first step although its survey lists facts to look up (GAIA f39aec9b)', () => {
    const trace = load(BEHAVIOR_FIXTURES, 'f39aec9b8a61fd2aaed5849cc00bc165.json')
    const { run, llm, calls } = answeringCall(trace)
    // The facts the test relies on, read without the detector: no tool or sub-agent ran before the answer.
    expect(calls.map((c) => c.toolName)).toEqual(['final_answer'])
    expect(run.managedAgents).toEqual(['search_agent'])
    const survey = factsSurvey(run)!
    expect(survey.lookups.length).toBeGreaterThan(0)

    // One category per piece of evidence by default: the skipped lookup, and the claimed check.
    const found = by(detect(trace), 'answer-without-lookup')
    expect(found.map((f) => f.category).sort()).toEqual(['Goal Deviation', 'Tool-related'])
    for (const f of found) expect(f.spanId).toBe(llm.id)
    const gd = found.find((f) => f.category === 'Goal Deviation')!
    expect(gd.evidence).toBe('final_answer("Marek")')
    expect(gd.reason).toContain('its plan names search_agent, never called')
    // The trail-recall profile adds the second guess on the same observation, quoting the survey.
    const recall = by(detect(trace, { profile: 'trail-recall' }), 'answer-without-lookup')
    expect(recall.map((f) => f.category).sort()).toEqual(['Goal Deviation', 'Tool Selection Errors', 'Tool-related'])
    const tse = recall.find((f) => f.category === 'Tool Selection Errors')!
    expect(tse.evidenceSpanId).toBe(survey.span.id)
    expect(outputText(survey.span)).toContain(tse.evidence)
    // The retrieval the answer claims ("the data shows …") never happened.
    const claim = found.find((f) => f.category === 'Tool-related')!
    expect(claim.evidence).toContain('the data shows')
    expect(outputText(llm)).toContain(claim.evidence)
  })

  it('says nothing when the survey states nothing needs looking up (a self-contained puzzle, GAIA 27a6c5eb)', () => {
    const trace = load(BEHAVIOR_FIXTURES, '27a6c5ebc3311542156fdde857a0035f.json')
    const { run, calls } = answeringCall(trace)
    // Same shape as above — it answers in step 1 with no tool — but its survey says no lookup is needed.
    expect(calls.map((c) => c.toolName)).toEqual(['final_answer'])
    expect(factsSurvey(run)).toEqual({ span: run.planning[0], lookups: [] })
    expect(detect(trace)).toEqual([])
  })

  it('says nothing when a team member was asked before the answer (GAIA 41bbc898)', () => {
    const trace = load(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json')
    const run = agentRuns(trace)[0]
    expect(factsSurvey(run)!.lookups.length).toBeGreaterThan(0)
    expect(run.steps.flatMap((s) => stepCalls(trace, s).calls).some((c) => c.kind === 'agent')).toBe(true)
    expect(by(detect(trace), 'answer-without-lookup')).toEqual([])
  })
})

describe('announced-call on the repo fixtures', () => {
  it('flags a thought that says "I will ask our search_agent" over code that only prints (GAIA d67a8ae8)', () => {
    const trace = load(FIXTURE_DIR, 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json')
    const [f] = by(detect(trace), 'announced-call')
    expect(f).toMatchObject({
      category: 'Task Orchestration',
      evidence: expect.stringMatching(/^Thought: I will ask our search_agent team member/),
    })
    const llm = trace.get(f.spanId)!
    const { code } = splitThoughtAndCode(outputText(llm))
    expect(code).toBeDefined()
    expect(codeCalls(code!, 'search_agent')).toBe(false)
    expect(f.reason).toContain('the code calls print instead')
  })

  it('says nothing when the announced team member is called (GAIA 41bbc898)', () => {
    const trace = load(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json')
    const { llm } = stepCalls(trace, agentRuns(trace)[0].steps[0])
    const { thought, code } = splitThoughtAndCode(outputText(llm!))
    expect(thought).toMatch(/I will ask our search_agent/)
    expect(codeCalls(code!, 'search_agent')).toBe(true)
    expect(by(detect(trace), 'announced-call')).toEqual([])
  })
})

describe('answer-template on the repo fixtures', () => {
  it('flags a refusal where the prompt demands "FINAL ANSWER: …" (GAIA 7c98d39b)', () => {
    const trace = load(BEHAVIOR_FIXTURES, '7c98d39b2699d41fa913f8fbe60c04ed.json')
    const [f] = by(detect(trace), 'answer-template')
    const llm = trace.get(f.spanId)!
    expect(lastInputMessage(llm)!.content).toContain('use the following template: FINAL ANSWER: [YOUR FINAL ANSWER]')
    expect(f).toMatchObject({
      category: 'Instruction Non-compliance',
      evidence: "I'm sorry, but I cannot provide location‐based requests for copyrighted texts",
    })
    expect(f.reason).toContain('does not start with "FINAL ANSWER:"')
  })

  it('says nothing for an answer in the template (GAIA 0ebe673d: "FINAL ANSWER: right")', () => {
    const trace = load(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json')
    const last = trace.spans.filter((s) => s.kind === 'llm').pop()!
    expect(lastInputMessage(last)!.content).toContain('use the following template: FINAL ANSWER:')
    expect(outputText(last)).toBe('FINAL ANSWER: right')
    expect(by(detect(trace), 'answer-template')).toEqual([])
  })
})

describe('error-observed on the repo fixtures', () => {
  it('names the parse error again on the next model call, whose input is the error message (GAIA d67a8ae8)', () => {
    const trace = load(FIXTURE_DIR, 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json')
    const findings = detect(trace)
    const [observed] = by(findings, 'error-observed')
    const [status] = by(findings, 'error-status')
    expect(observed).toMatchObject({ category: 'Formatting Errors', evidence: 'Error in code parsing:' })
    expect(observed.evidenceSpanId).toBeUndefined()
    expect(observed.spanId).not.toBe(status.spanId)
    const llm = trace.get(observed.spanId)!
    expect(lastInputMessage(llm)!.content).toMatch(/^Error:\nError in code parsing:/)
    expect(llm.startNs).toBeGreaterThan(trace.get(status.evidenceSpanId!)!.endNs - 1n)
  })

  it('says nothing on runs where no action failed', () => {
    for (const [dir, name] of [
      [FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json'],
      [BEHAVIOR_FIXTURES, 'f39aec9b8a61fd2aaed5849cc00bc165.json'],
    ]) {
      const trace = load(dir, name)
      expect(trace.spans.some((s) => s.status === 'error')).toBe(false)
      expect(by(detect(trace), 'error-observed')).toEqual([])
    }
  })
})

describe('agent-run helpers', () => {
  it('codeCalls ignores names inside strings and comments, and attribute calls', () => {
    const code =
      'task = "please ask search_agent(task) to look"\n# search_agent(task=task)\nprint(task)\nself.search_agent(x)'
    expect(codeCalls(code, 'search_agent')).toBe(false)
    expect(codeCalls(code, 'print')).toBe(true)
    expect(codeCalls('answer = search_agent (task=task)', 'search_agent')).toBe(true)
    expect(codeCalls('x = """\nsearch_agent(1)\n"""\nfinal_answer(x)', 'search_agent')).toBe(false)
  })

  it('announcedNotCalled: an announced call the code skips, not a mention of earlier output or a made call', () => {
    const thought = 'Thought: I will now ask our search_agent to find the record.'
    expect(announcedNotCalled(thought, 'print(task)', 'search_agent')).toBe(thought.indexOf('I will'))
    expect(announcedNotCalled(thought, 'answer = search_agent(task=task)', 'search_agent')).toBeUndefined()
    expect(
      announcedNotCalled(
        'Thought: I will use the results from search_agent to answer.',
        'final_answer(x)',
        'search_agent',
      ),
    ).toBeUndefined()
    expect(
      announcedNotCalled('Thought: search_agent said 12. I will answer.', 'final_answer(12)', 'search_agent'),
    ).toBeUndefined()
  })

  it('splitThoughtAndCode splits a real CodeAgent step at its code block', () => {
    const trace = load(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json')
    const text = outputText(stepCalls(trace, agentRuns(trace)[0].steps[0]).llm!)
    const { thought, code, codeAt } = splitThoughtAndCode(text)
    expect(thought.startsWith('Thought:')).toBe(true)
    expect(thought.trimEnd().endsWith('Code:')).toBe(true)
    expect(text.slice(codeAt, codeAt + code!.length)).toBe(code)
    expect(code).not.toContain('```')
    expect(splitThoughtAndCode('no code here')).toEqual({ thought: 'no code here', code: undefined, codeAt: -1 })
  })
})

describe.skipIf(!HAVE_TRAIL)('behaviour detectors on every shared TRAIL trace', () => {
  const cases = () => allTrailTraces().map((trace) => ({ trace, findings: detect(trace) }))

  it('names each finding on an LLM call and quotes its evidence verbatim from the named span', () => {
    const detectors = new Set(['answer-without-lookup', 'announced-call', 'answer-template', 'error-observed'])
    const counts: Record<string, number> = {}
    for (const { trace, findings } of cases()) {
      for (const f of findings.filter((x) => detectors.has(x.detector))) {
        counts[f.detector] = (counts[f.detector] ?? 0) + 1
        expect(trace.get(f.spanId)!.kind).toBe('llm')
        expect(spanText(trace.get(f.evidenceSpanId ?? f.spanId)!)).toContain(f.evidence)
      }
    }
    expect(counts['answer-without-lookup']).toBeGreaterThan(45)
    expect(counts['announced-call']).toBeGreaterThan(20)
    expect(counts['error-observed']).toBeGreaterThan(40)
    expect(counts['answer-template']).toBeGreaterThanOrEqual(2)
  })

  it('answer-without-lookup: no tool or sub-agent ran in the run before the flagged answer', () => {
    for (const { trace, findings } of cases()) {
      for (const f of by(findings, 'answer-without-lookup')) {
        const run = agentRuns(trace).find((r) => r.steps.some((s) => stepCalls(trace, s).llm?.id === f.spanId))!
        const answer = trace.get(f.spanId)!
        const before = run.steps
          .flatMap((s) => stepCalls(trace, s).calls)
          .filter((c) => !isFinalAnswer(c) && c.startNs <= answer.endNs)
        expect(before, `${trace.traceId} ${f.spanId}`).toEqual([])
      }
    }
  })

  it('announced-call: the flagged code never calls the announced name', () => {
    for (const { trace, findings } of cases()) {
      for (const f of by(findings, 'announced-call')) {
        const name = /\((\w+)[;)]/.exec(f.reason)![1]
        const { thought, code } = splitThoughtAndCode(outputText(trace.get(f.spanId)!))
        expect(thought).toContain(name)
        expect(codeCalls(code!, name), `${trace.traceId} ${f.spanId}`).toBe(false)
      }
    }
  })

  it('answer-template: a multi-line answer where the prompt asks for a few words (GAIA ea313eef)', () => {
    const trace = trailTrace('GAIA', 'ea313eef')
    const [f] = by(detect(trace), 'answer-template')
    expect(outputText(trace.get(f.spanId)!)).toMatch(/^FINAL ANSWER: 1\nINT\. THE CASTLE/)
    expect(f.reason).toContain('runs over several lines')
  })
})
