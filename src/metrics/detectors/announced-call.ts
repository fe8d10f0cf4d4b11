import type { Trace } from '../../trace/trace'
import { runViews, type RunView } from './agent-run'
import { BEHAVIOR_RULES, type BehaviorRuleId } from './behavior-rules'
import { quoteEvidence, type Finding } from './finding'
import { underProfile } from './frameworks'
import { codeCalls, escapeRegExp, stripPythonStrings } from './python-code'
import { execNear, regexPerKey } from './scan'

export const ANNOUNCED_CALL_DETECTOR = 'announced-call'

// "I will ask our search_agent …", "I'll use the inspect_file_as_text tool", "Let me query search_agent":
// a first-person intent and an action verb before the name, within one sentence.
const INTENT = String.raw`\b(?:I(?:'ll|’ll| will| shall| am going to| need to| must| should)|Let me|Let's|Let’s)\b[^.\n]{0,80}?\b(?:ask|call|use|query|request|delegate|invoke|consult|employ|have)\b([^.\n]{0,60}?)`
// Longest text INTENT can match before the name: "I am going to" (13), 80, "delegate" (8), 60.
const INTENT_REACH = 13 + 80 + 8 + 60
// "I will use the results from search_agent": the name is a source of earlier output, not the next call.
const ABOUT_EARLIER_OUTPUT =
  /\b(?:from|by|provided|returned|given|results?|output|answer|response|findings|information)\b/i

/**
 * Findings for steps whose model announces a call and then does not make it: the thought says "I will
 * ask search_agent …" but the code only prints the request, or answers instead. Checked for every tool
 * and team member the agent may call (from its attributes), on code-writing agents (outputs with a fenced
 * code block). A missing delegation to a team member is Task Orchestration, a missing tool call Tool
 * Selection Errors; reported on the model call, quoting the announcement.
 * `runs` are the trace's {@link runViews} when the caller already has them (`detect()` shares one set).
 *
 * @example
 * detectAnnouncedCalls(trace)[0] // { category: 'Task Orchestration', evidence: 'Thought: I will now ask our search_agent …', … }
 */
export function detectAnnouncedCalls(trace: Trace, runs: readonly RunView[] = runViews(trace)): Finding[] {
  const out: Finding[] = []
  for (const { run, steps } of runs) {
    // Built by pushes, not spreads of mapped arrays: spreading arrays of varying element kinds deoptimized this loop.
    const names: Array<{ name: string; rule: BehaviorRuleId }> = []
    for (const name of run.managedAgents) names.push({ name, rule: 'announced-delegation-missing' })
    for (const name of run.tools) names.push({ name, rule: 'announced-tool-missing' })
    if (names.length === 0) continue
    for (const step of steps) {
      const { llm } = step
      if (!llm) continue
      const text = step.text
      // An announcement names the callee: skip outputs that name none before splitting them.
      if (!names.some((p) => text.includes(p.name))) continue
      const { thought, code } = step.split
      if (code === undefined) continue
      for (const p of names) {
        const at = announcedNotCalled(thought, code, p.name)
        if (at === undefined) continue
        const rule = BEHAVIOR_RULES[p.rule]
        out.push({
          spanId: llm.id,
          category: rule.category,
          detector: ANNOUNCED_CALL_DETECTOR,
          evidence: quoteEvidence(text, at),
          reason: `${rule.reason} (${p.name}${calledInstead(code)})`,
          severity: 'medium',
        })
        break
      }
    }
  }
  return underProfile(out, 'smolagents')
}

const intentToCall = regexPerKey((name) => new RegExp(`${INTENT}\\b${escapeRegExp(name)}\\b`, 'g'))

/**
 * Where `thought` announces a call of `name` ("I will ask our search_agent …") that `code` does not make,
 * or undefined. Mentions of the name as the source of earlier output ("I will use the results from
 * search_agent") are not announcements.
 *
 * @example
 * announcedNotCalled('Thought: I will ask our search_agent to find it.', 'print(task)', 'search_agent') // 9
 */
export function announcedNotCalled(thought: string, code: string, name: string): number | undefined {
  // Cheap test first: most thoughts name no tool, and the intent pattern is the costly part.
  const named = thought.indexOf(name)
  if (named === -1) return undefined
  // A match ends at a mention of the name and starts at most INTENT_REACH before it.
  const m = execNear(intentToCall(name), thought, named, INTENT_REACH)
  if (!m || ABOUT_EARLIER_OUTPUT.test(m[1]) || codeCalls(code, name)) return undefined
  return m.index
}

/** ", the code calls print, final_answer instead" — what the code did run, for the reason line. */
function calledInstead(code: string): string {
  const called = [...new Set([...stripPythonStrings(code).matchAll(/(?<![\w.])([A-Za-z_]\w*)\s*\(/g)].map((m) => m[1]))]
    .filter((n) => !PY_NOISE.has(n))
    .slice(0, 4)
  return called.length > 0 ? `; the code calls ${called.join(', ')} instead` : ''
}

// Constructors and builtins that say nothing about which action the code took.
const PY_NOISE = new Set([
  'str',
  'int',
  'float',
  'len',
  'list',
  'dict',
  'set',
  'tuple',
  'range',
  'enumerate',
  'zip',
  'sorted',
  'round',
  'abs',
  'min',
  'max',
  'sum',
  'isinstance',
  'if',
  'for',
  'while',
  'return',
])
