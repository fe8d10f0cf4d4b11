// One self-contained HTML report: inline CSS and JS, images as data URLs, nothing fetched.
import type { Report, ReportTest, ReportTrace } from '../src/verdict/report'
import type { Verdict } from '../src/verdict/verdict'
import { OUTCOME_SYMBOL, STATE_SYMBOL, formatCost, formatInt, formatScoreVsThreshold, indexSpans, shortId, verdictsOfSpan, type ReportSpan } from './format'
import { HTML_SCRIPT, HTML_STYLE } from './html-assets'

/** An image resolved for embedding (`dataUrl`), or why it was not (`skipped`). Keyed by `image.source`. */
export type ImageEmbed = { dataUrl: string } | { skipped: string }

export interface HtmlRenderOptions {
  /** From `loadImageEmbeds`; without it every image is shown by its digest only. */
  images?: ReadonlyMap<string, ImageEmbed>
  title?: string
}

/** Escapes text for HTML element content and quoted attribute values. Everything from a report is untrusted. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

const e = escapeHtml

/**
 * Renders the report as one HTML document. Pure: images must be resolved beforehand (`loadImageEmbeds`).
 *
 * @example
 * await writeFile('report.html', renderHtml(report, { images: await loadImageEmbeds(report, { baseDir: root }) }))
 */
export function renderHtml(report: Report, options: HtmlRenderOptions = {}): string {
  const title = options.title ?? 'agent-verdict report'
  const tests = report.tests.map((t) => renderTest(t, options.images)).join('\n')
  // The CSP makes "no external requests" a property of the file, not just of this renderer.
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<style>${HTML_STYLE}</style></head>
<body>
<header><h1>${e(title)}</h1>${renderRun(report)}
<label class="filter"><input type="checkbox" id="only-failing"> only tests with failing or unjudgeable verdicts</label></header>
<main>
${tests || '<p class="empty">No tests with verdicts in this run.</p>'}
</main>
<script>${HTML_SCRIPT}</script>
</body></html>
`
}

function renderRun(report: Report): string {
  const { run } = report
  const t = run.totals
  const cells: Array<[string, string, string?]> = [
    ['verdicts', formatInt(t.verdicts)],
    ['failed', formatInt(t.failed), t.failed > 0 ? 'fail' : undefined],
    ['unjudgeable', formatInt(t.unjudgeable), t.unjudgeable > 0 ? 'unjudgeable' : undefined],
    ['judge calls', formatInt(t.judgeCalls)],
    ['replayed', formatInt(t.cachedCalls)],
    ['tokens', formatInt(t.tokens)],
    ['cost', formatCost(t.costUsd)],
  ]
  const meta = [`started ${run.startedAt}`, run.runner ? `runner ${run.runner}` : '', `judge ${run.judge ?? 'none'}`, `mode ${run.mode}`].filter(Boolean)
  return `<p class="meta">${meta.map(e).join(' · ')}</p>
<table class="totals"><tr>${cells.map(([k]) => `<th>${e(k)}</th>`).join('')}</tr>
<tr>${cells.map(([, v, cls]) => `<td${cls ? ` class="${cls}"` : ''}>${e(v)}</td>`).join('')}</tr></table>`
}

function renderTest(test: ReportTest, images?: ReadonlyMap<string, ImageEmbed>): string {
  const bad = test.verdicts.some((v) => v.outcome !== 'pass') || test.state === 'fail'
  const error = test.state === 'fail' && test.error ? `<pre class="error">${e(test.error)}</pre>` : ''
  const verdicts =
    test.verdicts.length === 0
      ? ''
      : `<table class="verdicts"><thead><tr><th></th><th>metric</th><th>where</th><th>score</th><th>reason</th></tr></thead><tbody>
${test.verdicts.map((v) => renderVerdictRow(v, spanNames(test), images)).join('\n')}
</tbody></table>`
  const traces = (test.traces ?? []).map((t) => renderTrace(t, test.verdicts)).join('\n')
  return `<section class="test state-${test.state}${bad ? ' has-failures' : ''}">
<h2><span class="sym ${test.state}">${STATE_SYMBOL[test.state]}</span> <span class="file">${e(test.file)}</span> › ${e(test.name)}${
    test.durationMs !== undefined ? ` <small>${Math.round(test.durationMs)} ms</small>` : ''
  }</h2>
${error}${verdicts}${traces}
</section>`
}

/** `kind:name` of every span in the test's traces, so a span verdict says which span it judged. */
function spanNames(test: ReportTest): Map<string, string> {
  return new Map((test.traces ?? []).flatMap((t) => t.spans.map((s) => [s.id, `${s.kind}:${s.name}`] as const)))
}

function renderVerdictRow(v: Verdict, names: ReadonlyMap<string, string>, images?: ReadonlyMap<string, ImageEmbed>): string {
  const spanName = v.spanId === undefined ? undefined : names.get(v.spanId)
  const where = v.level === 'span' ? `span ${spanName ? `${e(spanName)} ` : ''}<code>${e(v.spanId ?? '?')}</code>` : e(v.level)
  const details: string[] = []
  if (v.category) details.push(`<div class="category">${e(v.category)}</div>`)
  details.push(`<div class="reason">${e(v.reason) || '<em>no reason given</em>'}</div>`)
  if (v.evidence) details.push(`<blockquote class="evidence">${e(v.evidence)}</blockquote>`)
  if (v.subject) details.push(`<details><summary>judged text</summary><pre>${e(v.subject)}</pre></details>`)
  if (v.image) details.push(renderImage(v.image, images))
  if (v.samples) details.push(`<div class="judge">samples ${e(v.samples.join(', '))}</div>`)
  if (v.judge) {
    const j = v.judge
    const cost = j.costUsd === undefined || j.costUsd === null ? 'n/a' : formatCost(j.costUsd)
    details.push(
      `<div class="judge">${e(`${j.provider}:${j.model}`)} · prompt ${e(j.promptVersion)} · ${j.cached ? 'replayed' : `${formatInt(j.tokens.input + j.tokens.output)} tokens · ${e(cost)}`}</div>`,
    )
  }
  return `<tr class="verdict ${v.outcome}"${v.id ? ` id="verdict-${e(v.id)}"` : ''}><td class="sym ${v.outcome}" title="${v.outcome}">${OUTCOME_SYMBOL[v.outcome]}</td><td>${e(
    v.metric,
  )}</td><td>${where}</td><td class="score">${e(formatScoreVsThreshold(v))}</td><td>${details.join('')}</td></tr>`
}

function renderImage(image: NonNullable<Verdict['image']>, images?: ReadonlyMap<string, ImageEmbed>): string {
  const label = `${image.format} sha256:${image.digest.slice(0, 12)}…`
  const embed = image.source === undefined ? undefined : images?.get(image.source)
  // Only data:image URLs reach src, so a crafted embed map cannot smuggle a script URL in.
  if (embed && 'dataUrl' in embed && /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(embed.dataUrl)) {
    return `<figure><img src="${e(embed.dataUrl)}" alt="${e(label)}"><figcaption>${e(image.source ?? '')} · ${e(label)}</figcaption></figure>`
  }
  const why = embed && 'skipped' in embed ? ` (not embedded: ${e(embed.skipped)})` : ''
  return `<div class="image-ref">image ${e(label)}${image.source ? ` from <code>${e(image.source)}</code>` : ''}${why}</div>`
}

function renderTrace(trace: ReportTrace, verdicts: readonly Verdict[]): string {
  const index = indexSpans(trace)
  const children = new Map<string | null, ReportSpan[]>()
  for (const s of trace.spans) {
    const parent = s.parentId !== null && index.has(s.parentId) ? s.parentId : null
    children.set(parent, [...(children.get(parent) ?? []), s])
  }
  const failed = trace.spans.filter((s) => s.failed).length
  // Iterative walk: synthetic traces can nest deeper than a recursive renderer's stack.
  const html: string[] = []
  const seen = new Set<string>()
  const stack: Array<ReportSpan | 'close'> = [...(children.get(null) ?? [])].reverse()
  let cursor = 0
  for (;;) {
    if (stack.length === 0) {
      // Spans caught in a parent cycle are unreachable from any root; show them as roots after the tree.
      while (cursor < trace.spans.length && seen.has(trace.spans[cursor].id)) cursor++
      if (cursor === trace.spans.length) break
      stack.push(trace.spans[cursor])
    }
    const item = stack.pop()!
    if (item === 'close') {
      html.push('</ul></li>')
      continue
    }
    if (seen.has(item.id)) continue
    seen.add(item.id)
    const kids = (children.get(item.id) ?? []).filter((k) => !seen.has(k.id))
    html.push(`<li class="span${item.failed ? ' failed' : ''}">${renderSpanLabel(item, verdictsOfSpan(item, verdicts))}`)
    if (kids.length === 0) html.push('</li>')
    else {
      html.push('<ul>')
      stack.push('close', ...[...kids].reverse())
    }
  }
  return `<details class="trace" open><summary>trace <code>${e(shortId(trace.id))}</code> · ${trace.spans.length} spans · ${failed} failed</summary>
<ul class="tree">${html.join('')}</ul></details>`
}

function renderSpanLabel(span: ReportSpan, own: readonly Verdict[]): string {
  const items = own
    .map((v) => {
      const label = v.category ? `${v.category} (${v.metric} ${formatScoreVsThreshold(v)})` : `${v.metric} ${formatScoreVsThreshold(v)}`
      const anchor = v.id ? `<a href="#verdict-${e(v.id)}">${e(label)}</a>` : e(label)
      return `<li class="span-verdict ${v.outcome}"><span class="sym ${v.outcome}">${OUTCOME_SYMBOL[v.outcome]}</span> ${anchor}: ${e(v.reason)}</li>`
    })
    .join('')
  return `<span class="kind">${e(span.kind)}</span>:<span class="name">${e(span.name)}</span> <code class="id">${e(shortId(span.id))}</code>${
    items ? `<ul class="span-verdicts">${items}</ul>` : ''
  }`
}
