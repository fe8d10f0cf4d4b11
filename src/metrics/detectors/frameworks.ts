// Framework profiles: the behaviour rules that read one framework's own attributes, prompts or output shapes
// run only under that framework's profile, so a rule written for smolagents never fires on an OpenAI Agents
// SDK or LangGraph trace, and each of its findings says which framework's conventions it relied on.
import * as z from 'zod'
import type { Trace } from '../../trace/trace'

/**
 * A framework profile: a named set of rules that read one framework's conventions.
 * - `smolagents`: the agent span's `smolagents.*` attributes (tools, team members), its planning prompt's
 *   "Facts to look up" survey, CodeAgent `Thought:` / `Code:` steps, and its wording of failed model code.
 * - `gaia`: the GAIA benchmark's answer template in the prompt ("use the following template: FINAL ANSWER: …").
 *
 * @example
 * FrameworkProfileSchema.parse('smolagents')
 */
export const FrameworkProfileSchema = z.enum(['smolagents', 'gaia'])
export type FrameworkProfile = z.infer<typeof FrameworkProfileSchema>

/** Every framework profile, in the order they are documented. */
export const FRAMEWORK_PROFILES: readonly FrameworkProfile[] = FrameworkProfileSchema.options

/** The profiles a detection runs under: chosen from the trace, or fixed by the caller. */
export interface ActiveFrameworks {
  has(profile: FrameworkProfile): boolean
}

/**
 * True when the trace was recorded from smolagents: one of its agent spans carries a `smolagents.*` attribute
 * (smolagents' always do: `smolagents.max_steps`, `smolagents.tools_names`). Only attribute keys are read.
 *
 * @example
 * isSmolagentsTrace(trace) // true for every TRAIL trace whose agent spans were recorded by smolagents
 */
export function isSmolagentsTrace(trace: Trace): boolean {
  const spans = trace.spans
  // smolagents records its attributes on its agent spans; reading only those keeps this O(agents) in key scans.
  for (let i = 0; i < spans.length; i++)
    if (spans[i].kind === 'agent' && hasSmolagentsKey(spans[i].attributes)) return true
  return false
}

function hasSmolagentsKey(attributes: Record<string, unknown>): boolean {
  for (const key in attributes) if (key.startsWith('smolagents.')) return true
  return false
}

/**
 * The profiles to run on `trace`: `chosen` when the caller names them (an empty list turns every framework
 * rule off), else those the trace's conventions show. `smolagents` is chosen by its attributes
 * ({@link isSmolagentsTrace}); `gaia` is always allowed, because its one rule fires only on a prompt that
 * carries GAIA's template — recognizing the template is choosing the profile.
 *
 * @example
 * activeFrameworks(trace).has('smolagents') // false on an OpenAI Agents SDK trace
 * activeFrameworks(trace, ['gaia']).has('smolagents') // false, whatever the trace
 */
export function activeFrameworks(trace: Trace, chosen?: readonly FrameworkProfile[]): ActiveFrameworks {
  if (chosen) return new Set(chosen)
  let smolagents: boolean | undefined
  return {
    has: (profile) => (profile === 'gaia' ? true : (smolagents ??= isSmolagentsTrace(trace))),
  }
}

/**
 * The findings of a framework rule, marked as such: `framework` names the profile, and the reason ends with
 * ` [smolagents profile]`, so every report that shows the reason (terminal, HTML, verdicts) shows it too.
 *
 * @example
 * underProfile([finding], 'gaia')[0].reason // 'the answer does not follow the template … [gaia profile]'
 */
export function underProfile<F extends { reason: string; framework?: FrameworkProfile }>(
  findings: F[],
  profile: FrameworkProfile,
): F[] {
  for (const f of findings) {
    f.framework = profile
    f.reason = `${f.reason} [${profile} profile]`
  }
  return findings
}
