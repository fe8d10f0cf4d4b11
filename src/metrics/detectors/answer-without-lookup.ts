import type { Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'
import { isFinalAnswer, outputText, runViews, type AgentRun, type RunView, type StepView } from './agent-run'
import { BEHAVIOR_RULES } from './behavior-rules'
import { quoteEvidence, type DetectorProfile, type Finding } from './finding'
import { underProfile } from './frameworks'
import { spanLabel } from './localize'
import { codeCalls, escapeRegExp, hasWord } from './python-code'
import { regexPerKey } from './scan'

export const ANSWER_WITHOUT_LOOKUP_DETECTOR = 'answer-without-lookup'

/**
 * Findings for agent runs that answered before gathering anything: the first step that calls the
 * final-answer tool comes before any other tool or sub-agent call of the run, although the run's own
 * facts survey ("Facts to look up") lists facts to look up. Reported on the model call that wrote the
 * answer: Goal Deviation (the run skipped what its survey and plan said the task needs), Tool Selection
 * Errors (it answered from memory with lookup tools at hand) and, when its reasoning claims a check that
 * never ran ("I have verified…", "the USGS report indicates…"), Tool-related. Runs without a survey, or whose
 * survey says nothing needs looking up (a self-contained puzzle), get no finding.
 *
 * One category per piece of evidence: the skipped lookup is Goal Deviation. Tool Selection Errors rests on
 * the same observation (no tool was called), so it is a second guess at the same fact, named only under the
 * `trail-recall` profile (TRAIL's recall-only metrics reward it: on the dev GAIA traces it is gold on 13 of
 * its 40 spans, Goal Deviation on 25). The retrieval claim has evidence of its own and is always named.
 * `runs` are the trace's {@link runViews} when the caller already has them (`detect()` shares one set).
 *
 * @example
 * detectAnswerWithoutLookup(trace).map((f) => f.category) // ['Goal Deviation']
 * detectAnswerWithoutLookup(trace, undefined, 'trail-recall').map((f) => f.category) // ['Goal Deviation', 'Tool Selection Errors']
 */
export function detectAnswerWithoutLookup(
  trace: Trace,
  runs: readonly RunView[] = runViews(trace),
  profile: DetectorProfile = 'default',
): Finding[] {
  const out: Finding[] = []
  for (const { run, steps } of runs) {
    // The structural test first: most runs look something up before answering, and then no text is read.
    const answer = firstAnswerBeforeLookup(steps)
    if (!answer) continue
    const survey = factsSurvey(run)
    if (!survey || survey.lookups.length === 0) continue
    const planned = plannedCalls(run, survey.span)
    const callable = run.managedAgents.concat(run.tools)
    const skipped = planned.length > 0 ? `; its plan names ${planned.join(', ')}, never called` : ''
    out.push({
      spanId: answer.llm.id,
      category: BEHAVIOR_RULES['answer-skips-lookup'].category,
      detector: ANSWER_WITHOUT_LOOKUP_DETECTOR,
      evidence: answerEvidence(answer),
      reason: `${BEHAVIOR_RULES['answer-skips-lookup'].reason} (survey: ${spanLabel(survey.span)})${skipped}`,
      severity: 'high',
    })
    if (profile === 'trail-recall')
      out.push({
        spanId: answer.llm.id,
        category: BEHAVIOR_RULES['answer-without-tools'].category,
        detector: ANSWER_WITHOUT_LOOKUP_DETECTOR,
        evidence: survey.lookups[0],
        evidenceSpanId: survey.span.id,
        reason: `${BEHAVIOR_RULES['answer-without-tools'].reason}${callable.length > 0 ? ` (available: ${callable.join(', ')})` : ''}`,
        severity: 'high',
      })
    const claim = retrievalClaim(answer, run.managedAgents)
    if (claim) {
      out.push({
        spanId: answer.llm.id,
        category: BEHAVIOR_RULES['answer-claims-retrieval'].category,
        detector: ANSWER_WITHOUT_LOOKUP_DETECTOR,
        evidence: claim,
        reason: BEHAVIOR_RULES['answer-claims-retrieval'].reason,
        severity: 'high',
      })
    }
  }
  return underProfile(out, 'smolagents')
}

// First-person claims of having checked something, and sources said to show or confirm a fact; "according
// to" a source, except the task's own policy, rules or plan. A source is a search, a record… or one of the
// run's own team members, by the name the trace gives it (never a name written here).
const claimPattern = (sources: string) =>
  new RegExp(
    [
      String.raw`\bI(?:'ve|’ve| have)? (?:verified|confirmed|double-checked|checked|looked up|searched|retrieved|cross-referenced|cross-checked)\b`,
      String.raw`\b(?:search(?:es)?|search results?|records?|reports?|database|data|${sources}team member|sources?|checks?)\s+(?:of [^.\n]{1,40}?)?(?:shows?|showed|indicates?|indicated|confirms?|confirmed|reveals?|revealed)\b`,
      String.raw`\baccording to (?!(?:the |our )?(?:policy|task|instructions?|question|rules?|plan|problem)\b)`,
    ].join('|'),
    'i',
  )
const RETRIEVAL_CLAIM = claimPattern('')
const claimNaming = regexPerKey((names) => claimPattern(names))

/** A sentence of the answer's reasoning (before its code) that claims a retrieval, quoted; undefined if none. */
function retrievalClaim(answer: StepView, teamMembers: readonly string[]): string | undefined {
  const pattern =
    teamMembers.length === 0 ? RETRIEVAL_CLAIM : claimNaming(teamMembers.map((n) => `${escapeRegExp(n)}|`).join(''))
  const m = pattern.exec(answer.split.thought)
  return m ? quoteEvidence(answer.text, m.index) : undefined
}

/** The facts survey of a run: the planning call whose output has a "Facts to look up" section, and its items. */
export interface FactsSurvey {
  span: Span
  /** Verbatim lines listed to look up; empty when the survey says nothing needs looking up. */
  lookups: string[]
}

const LOOKUP_HEADING = /^[#*\s\d.]*Facts to look up\b[^\n]*\n/im
// The section ends at the next heading ("### 3. Facts to derive", "## Plan").
const NEXT_HEADING = /^\s*(?:#{1,6}\s|\d+\.\s+Facts to derive|Facts to derive)/im
// "• No external facts …", "None", "Nothing needs to be looked up", "N/A".
const NOTHING = /^(?:no|none|nothing|n\/a|there (?:is|are) no)\b/i
const BULLET = /^[\s•\-*·–\d.)]+/

/**
 * The run's first facts survey (a planning call listing "Facts to look up"), or undefined.
 *
 * @example
 * factsSurvey(run)?.lookups[0] // '• The exact traveled distance on I-40 from Los Angeles to Cincinnati.'
 */
export function factsSurvey(run: AgentRun): FactsSurvey | undefined {
  for (const llm of run.planning) {
    const text = outputText(llm)
    const heading = LOOKUP_HEADING.exec(text)
    if (!heading) continue
    const body = text.slice(heading.index + heading[0].length)
    const end = NEXT_HEADING.exec(body)
    const lines = (end ? body.slice(0, end.index) : body)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && l !== '```')
    const first = (lines[0] ?? '').replace(BULLET, '')
    return { span: llm, lookups: lines.length === 0 || NOTHING.test(first) ? [] : lines.map((l) => quoteEvidence(l)) }
  }
  return undefined
}

/** The first final-answer step of a run when no other tool or sub-agent ran before it (in that step or earlier). */
function firstAnswerBeforeLookup(steps: readonly StepView[]): (StepView & { llm: Span }) | undefined {
  for (const step of steps) {
    const { llm, calls } = step
    const final = calls.find(isFinalAnswer)
    if (final && llm && !calls.some((c) => !isFinalAnswer(c) && c.startNs <= final.startNs))
      return step as StepView & { llm: Span }
    if (calls.some((c) => !isFinalAnswer(c))) return undefined
  }
  return undefined
}

/** Tools and team members the run's plan (planning output after the survey) names. */
function plannedCalls(run: AgentRun, survey: Span): string[] {
  const plan = run.planning
    .filter((s) => s !== survey && s.startNs >= survey.startNs)
    .slice(0, 1)
    .map(outputText)
    .join('\n')
  return run.managedAgents.concat(run.tools).filter((name) => hasWord(plan, name))
}

/** The final-answer call in the model's code, else the start of its output, else its tool-call arguments. */
function answerEvidence(answer: StepView & { llm: Span }): string {
  const { llm, text } = answer
  const { code, codeAt } = answer.split
  if (code !== undefined && codeCalls(code, 'final_answer'))
    return quoteEvidence(text, codeAt + code.search(/final_answer\s*\(/))
  if (text.trim() !== '') return quoteEvidence(text)
  const calls = Array.isArray(llm.output)
    ? (llm.output as Array<{ toolCalls?: Array<{ arguments: string }> }>).flatMap((m) => m?.toolCalls ?? [])
    : []
  return quoteEvidence(calls[0]?.arguments ?? llm.name)
}
