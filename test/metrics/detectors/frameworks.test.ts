// Framework profiles: rules that read smolagents' (or GAIA's) own conventions run only under that profile, chosen
// from the trace or by option, and each of their findings names it.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findingVerdict } from '../../../src/diagnosis/findings'
import { detect, isSmolagentsTrace } from '../../../src/metrics/detectors/index'
import { parseTrace } from '../../../src/trace/parse'
import type { Trace } from '../../../src/trace/trace'
import { agentSpan, at, createRecorder, record } from '../../helpers/otel'

const BEHAVIOR_FIXTURES = fileURLToPath(new URL('../../fixtures/trail-behavior', import.meta.url))
// A TRAIL GAIA run (smolagents) that answers before any lookup and claims a check that never ran.
const SKIPS_LOOKUP = join(BEHAVIOR_FIXTURES, 'f39aec9b8a61fd2aaed5849cc00bc165.json')

const XFRAMEWORK = fileURLToPath(new URL('../../fixtures/xframework', import.meta.url))

const PROFILE_DETECTORS = new Set(['answer-without-lookup', 'announced-call', 'answer-template'])

/** The TRAIL file with its span attributes rewritten by `edit` (the run's texts and shape unchanged). */
function rewritten(file: string, edit: (attributes: Record<string, unknown>) => void): Trace {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { spans: unknown[] }
  const walk = (span: { span_attributes?: Record<string, unknown>; child_spans?: unknown[] }) => {
    if (span.span_attributes) edit(span.span_attributes)
    for (const kid of span.child_spans ?? []) walk(kid as typeof span)
  }
  for (const span of json.spans) walk(span as Parameters<typeof walk>[0])
  return parseTrace(JSON.stringify(json), file)
}

const withoutSmolagents = (attributes: Record<string, unknown>) => {
  for (const key of Object.keys(attributes)) if (key.startsWith('smolagents.')) delete attributes[key]
}

describe('framework profiles', () => {
  it('names the smolagents profile on each finding of a smolagents rule, in the finding and its verdict', () => {
    const trace = parseTrace(readFileSync(SKIPS_LOOKUP, 'utf8'), SKIPS_LOOKUP)
    expect(isSmolagentsTrace(trace)).toBe(true)
    const found = detect(trace).filter((f) => f.detector === 'answer-without-lookup')
    expect(found.map((f) => f.category).sort()).toEqual(['Goal Deviation', 'Tool-related'])
    for (const f of found) {
      expect(f.framework).toBe('smolagents')
      expect(f.reason).toMatch(/ \[smolagents profile\]$/)
      expect(findingVerdict(f).reason).toContain('[smolagents profile]')
    }
  })

  it('runs no smolagents rule on the same run when its spans carry no smolagents attributes', () => {
    // Same texts (a "Facts to look up" survey, a final_answer before any lookup), recorded without smolagents'
    // attributes: what another framework's trace of a lookalike run would hold.
    const trace = rewritten(SKIPS_LOOKUP, withoutSmolagents)
    expect(isSmolagentsTrace(trace)).toBe(false)
    expect(detect(trace).filter((f) => PROFILE_DETECTORS.has(f.detector) || f.framework)).toEqual([])
    // Forced on by option, the same rule finds the run again: the profile, not the texts, turned it off.
    const forced = detect(trace, { frameworks: ['smolagents'] }).filter((f) => f.detector === 'answer-without-lookup')
    expect(forced.map((f) => f.category)).toContain('Goal Deviation')
  })

  it('turns every framework rule off with frameworks: [] on a smolagents trace, general rules still run', () => {
    const trace = parseTrace(readFileSync(SKIPS_LOOKUP, 'utf8'), SKIPS_LOOKUP)
    expect(detect(trace, { frameworks: [] }).filter((f) => f.framework !== undefined)).toEqual([])
    expect(detect(trace, { frameworks: [] }).filter((f) => PROFILE_DETECTORS.has(f.detector))).toEqual([])
  })

  it('takes team-member names from the trace, not from a name written in the rule', () => {
    // The run's team member renamed to web_scout everywhere; its answer then credits a source for its facts.
    const credited = (source: string) => {
      const text = readFileSync(SKIPS_LOOKUP, 'utf8').replaceAll('search_agent', 'web_scout')
      const trace = parseTrace(text.replaceAll('the data shows', `${source} shows`), SKIPS_LOOKUP)
      return detect(trace).filter((f) => f.detector === 'answer-without-lookup' && f.category === 'Tool-related')
    }
    // Crediting the run's own team member, which never ran, is a claimed retrieval…
    expect(credited('web_scout').map((f) => f.evidence.includes('web_scout shows'))).toEqual([true])
    // …crediting a name this run has no member by is not one (it was, while the rule named search_agent).
    expect(credited('search_agent')).toEqual([])
  })

  it('recognizes failed model code by smolagents wording only under its profile', () => {
    const rec = createRecorder({ seed: 5 })
    const crash = { type: 'InterpreterError', message: 'The variable `os` is not defined.', time: at(350) }
    record(
      rec.tracer,
      agentSpan([
        {
          name: 'execute_tool run_code',
          start: at(100),
          end: at(400),
          error: crash,
          attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'run_code' },
        },
      ]),
    )
    const trace = parseTrace(rec.otlpJson(), 'sdk-run.json')
    const [general] = detect(trace)
    expect(general).toMatchObject({ detector: 'unrecognized-error', category: 'Environment Setup Errors' })
    expect(general.framework).toBeUndefined()
    const [smol] = detect(trace, { frameworks: ['smolagents'] })
    expect(smol).toMatchObject({ category: 'Formatting Errors', framework: 'smolagents' })
  })

  it('chooses no framework profile on real OpenAI Agents SDK (GenAI), LangGraph (OpenInference) and AI SDK traces', () => {
    let runs = 0
    for (const sdk of ['openai-agents', 'langgraph', 'ai-sdk']) {
      for (const file of readdirSync(join(XFRAMEWORK, sdk))) {
        const path = join(XFRAMEWORK, sdk, file)
        const trace = parseTrace(readFileSync(path, 'utf8'), path)
        expect(isSmolagentsTrace(trace)).toBe(false)
        expect(detect(trace).filter((f) => f.framework !== undefined || PROFILE_DETECTORS.has(f.detector))).toEqual([])
        runs++
      }
    }
    expect(runs).toBe(135)
  })
})
