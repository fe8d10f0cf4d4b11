import { CATEGORY_TREE, JUDGE_CATEGORIES } from '../../taxonomy'

/**
 * The TRAIL categories a judge may name, one line each with group › subgroup and a one-line hint.
 *
 * @example
 * TAXONOMY_LINES.split('\n')[0] // '- Language-only (Reasoning › Hallucinations): states facts …'
 */
export const TAXONOMY_LINES = JUDGE_CATEGORIES.map(
  (c) => `- ${c} (${CATEGORY_TREE[c].group} › ${CATEGORY_TREE[c].subgroup}): ${CATEGORY_TREE[c].hint}`,
).join('\n')
