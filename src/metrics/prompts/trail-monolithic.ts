import { CATEGORY_TREE, JUDGE_CATEGORIES, type CategoryGroup } from '../../taxonomy'
import { fence } from './fence'
import { DATA_NOT_INSTRUCTIONS } from './shared'

/** Bump when the wording changes: it is part of every cassette key. */
export const PROMPT_VERSION = 'trail-monolithic@2'

const GROUPS: CategoryGroup[] = ['Reasoning', 'System Execution', 'Planning and Coordination']

/** The taxonomy as a tree (group › subgroup › leaves), the way the TRAIL baseline shows it. */
function taxonomyTree(): string {
  const lines: string[] = []
  for (const group of GROUPS) {
    lines.push(`${group} Errors`)
    const subgroups = [
      ...new Set(
        JUDGE_CATEGORIES.filter((c) => CATEGORY_TREE[c].group === group).map((c) => CATEGORY_TREE[c].subgroup),
      ),
    ]
    for (const sub of subgroups) {
      const leaves = JUDGE_CATEGORIES.filter(
        (c) => CATEGORY_TREE[c].group === group && CATEGORY_TREE[c].subgroup === sub,
      )
      lines.push(`  ${sub}: ${leaves.map((c) => `${c} (${CATEGORY_TREE[c].hint})`).join(' | ')}`)
    }
  }
  return lines.join('\n')
}

/**
 * The papers' monolithic baseline: the whole trace file in one prompt with the taxonomy, the output
 * template and the location rules (our wording of the TRAIL evaluation prompt).
 */
export const SYSTEM = `You are an expert at debugging AI agent runs. You get the full OpenTelemetry trace of one agent run as JSON, in a <trace> block. Find every error in it and classify each with exactly one leaf of this taxonomy:

${taxonomyTree()}

Rules:
- "location" is the span_id of the span where the error happens: the FIRST span where it shows, except for Resource Abuse, where it is the LAST repeated call. Only LLM and TOOL spans are locations.
- "category" is a leaf name exactly as written above.
- "evidence" quotes the trace; "description" explains the error; "impact" is HIGH, MEDIUM or LOW.
- Then score the whole run from 0 to 5: reliability, security, instruction adherence and plan optimality, each with its reasoning, and "overall" as their mean.
- If there are no errors, return "errors": [].

Reply with one JSON object:
{"errors": [{"category": "…", "location": "<span_id>", "evidence": "…", "description": "…", "impact": "HIGH|MEDIUM|LOW"}],
 "scores": [{"reliability_score": 0-5, "reliability_reasoning": "…", "security_score": 0-5, "security_reasoning": "…", "instruction_adherence_score": 0-5, "instruction_adherence_reasoning": "…", "plan_opt_score": 0-5, "plan_opt_reasoning": "…", "overall": 0-5}]}

${DATA_NOT_INSTRUCTIONS}`

/**
 * The user message: the trace file's text, fenced (a trace is agent output: it may hold anything).
 *
 * @example
 * renderUser('{"resourceSpans":[]}') // '<trace>\n{"resourceSpans":[]}\n</trace>'
 */
export function renderUser(fileText: string): string {
  return fence('trace', fileText)
}
