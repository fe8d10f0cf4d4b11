import type { FailingLeaf } from './types'

/**
 * A metric id for people: `span.reasoning_integrity` → `reasoning integrity`; detectors keep their name.
 *
 * @example
 * metricLabel('span.tool_completeness') // 'tool completeness'
 */
export function metricLabel(metric: string): string {
  if (metric.startsWith('detector:')) return metric
  return metric.replace(/^(span|agent)\./, '').replace(/_/g, ' ')
}

/**
 * One line per failing leaf, as matchers and the CLI print it:
 * `span 3/17 tool:SearchInformationTool (id 4a1f…, path main › Step 4 › SearchInformationTool) — Tool Output Misinterpretation (reasoning integrity 2/5): reason`.
 *
 * @example
 * diagnosis.failingLeaves.map(formatFailingLeaf).join('\n')
 */
export function formatFailingLeaf(leaf: FailingLeaf): string {
  const score = typeof leaf.raw === 'number' && leaf.score !== null ? ` ${leaf.raw}/5` : ''
  const what = leaf.category
    ? `${leaf.category} (${metricLabel(leaf.metric)}${score})`
    : `${metricLabel(leaf.metric)}${score}`
  return `span ${leaf.position}/${leaf.of} ${leaf.kind}:${leaf.name} (id ${leaf.spanId}, path ${leaf.path.join(' › ')}) — ${what}: ${leaf.reason}`
}
