// Renders a verdict diff as terminal text (one line per change) and as Markdown for a PR comment / step summary.
import { terminalSafe } from '../verdict/safe-text'
import type { DiffChange, DiffItem, VerdictDiff } from './diff'
import { escapeMarkdownCell } from './render-github-summary'

const num = (n: number) => String(Math.round(n * 10_000) / 10_000)
const signed = (n: number, f: (n: number) => string) => (n >= 0 ? `+${f(n)}` : `-${f(-n)}`)
const usd = (n: number | null) => (n === null ? 'unknown' : `$${num(n)}`)

function state(i: DiffItem): string {
  if (i.trials)
    return `${i.outcome ?? '?'} ${i.trials.passes}/${i.trials.k} [${num(i.trials.lower)}, ${num(i.trials.upper)}]`
  return `${i.outcome ?? 'score'} ${i.score === null ? '–' : num(i.score)}`
}

function changeText(c: DiffChange, flip: boolean): string {
  if (flip) return `${state(c.base)} → ${state(c.head)} — ${c.label}`
  const delta = (c.head.score ?? 0) - (c.base.score ?? 0)
  return `${num(c.base.score ?? 0)} → ${num(c.head.score ?? 0)} (${signed(delta, num)}) — ${c.label}`
}

function counts(d: VerdictDiff): string {
  const s = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  return `${d.flipped.length} flipped (${s(d.regressions, 'regression')}), ${s(d.scoreChanges.length, 'score change')}, ${d.added.length} new, ${d.removed.length} removed`
}

function costLines(d: VerdictDiff): [string, string] {
  const tokens = `${d.tokens.base} → ${d.tokens.head} (${signed(d.tokens.head - d.tokens.base, String)})`
  const c = d.costUsd
  const cost = `${usd(c.base)} → ${usd(c.head)}${c.base !== null && c.head !== null ? ` (${signed(c.head - c.base, (n) => `$${num(n)}`)})` : ''}`
  return [tokens, cost]
}

/**
 * One line per change, then tokens, cost and the counts.
 *
 * @example
 * process.stdout.write(renderDiffText(diffVerdicts(base, head)))
 */
export function renderDiffText(d: VerdictDiff): string {
  const lines = [`verdict diff: ${d.base} → ${d.head}`]
  for (const c of d.flipped) lines.push(`flipped  ${c.key}: ${changeText(c, true)}`)
  for (const c of d.scoreChanges) lines.push(`score    ${c.key}: ${changeText(c, false)}`)
  for (const i of d.added) lines.push(`new      ${i.key}: ${state(i)}`)
  for (const i of d.removed) lines.push(`removed  ${i.key}: ${state(i)}`)
  const [tokens, cost] = costLines(d)
  lines.push(`tokens   ${tokens}`, `cost     ${cost}`, counts(d))
  // Test names and reasons are user and judge text: a control character in one must not erase the line above it.
  return lines.map(terminalSafe).join('\n') + '\n'
}

// Test names and reasons are user/judge text: the step summary's escaping, so none breaks a row (a `\|`, a lone
// `\r`), embeds an image or a link, or adds markup.
function cell(text: string): string {
  return escapeMarkdownCell(text)
}

/**
 * A Markdown section for a PR comment or `$GITHUB_STEP_SUMMARY`: counts, then a table of the changes.
 *
 * @example
 * appendFileSync(process.env.GITHUB_STEP_SUMMARY!, renderDiffMarkdown(diff))
 */
export function renderDiffMarkdown(d: VerdictDiff): string {
  const out = [`### agent-verdict diff: ${cell(d.base)} → ${cell(d.head)}`, '', `${counts(d)}.`, '']
  const rows: string[] = []
  for (const c of d.flipped)
    rows.push(
      `| ${c.label === 'regression' ? '🔴' : c.label === 'fix' ? '🟢' : '⚪'} flipped | ${cell(c.key)} | ${cell(state(c.base))} | ${cell(state(c.head))} | ${c.label} |`,
    )
  for (const c of d.scoreChanges)
    rows.push(
      `| ${c.label === 'drop' ? '🔻' : c.label === 'rise' ? '🔺' : '⚪'} score | ${cell(c.key)} | ${num(c.base.score ?? 0)} | ${num(c.head.score ?? 0)} | ${c.label} |`,
    )
  for (const i of d.added) rows.push(`| new | ${cell(i.key)} | – | ${cell(state(i))} | |`)
  for (const i of d.removed) rows.push(`| removed | ${cell(i.key)} | ${cell(state(i))} | – | |`)
  if (rows.length > 0)
    out.push('| change | test › matcher › span › metric | base | head | label |', '|---|---|---|---|---|', ...rows, '')
  const [tokens, cost] = costLines(d)
  out.push(`Judge tokens ${tokens}; cost ${cost}.`, '')
  return out.join('\n')
}
