// One self-contained HTML report: inline CSS and JS, images as data URLs, nothing fetched.
import { basename, isAbsolute, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { assertionStatus, judgedNote } from '../verdict/assertion'
import type { Report, ReportTest, ReportTrace } from '../verdict/report'
import { shortSpanId } from '../verdict/text'
import type { Verdict } from '../verdict/verdict'
import {
  OUTCOME_SYMBOL,
  STATE_SYMBOL,
  formatCost,
  formatInt,
  formatScoreVsThreshold,
  indexSpans,
  totalsParts,
  traceSummary,
  verdictsOfSpan,
  type ReportSpan,
} from './format'
import { HTML_SCRIPT, HTML_STYLE } from './html-assets'

/** An image resolved for embedding (`dataUrl`), or why it was not (`skipped`). Keyed by `image.source`. */
export type ImageEmbed = { dataUrl: string } | { skipped: string }

export interface HtmlRenderOptions {
  /** From `loadImageEmbeds` (keyed by digest); without it every image is shown by its digest only. */
  images?: ReadonlyMap<string, ImageEmbed>
  title?: string
  /** The project root: local image paths are shown relative to it (outside it, by file name only). Default: file names only. */
  baseDir?: string
}

const DATA_IMAGE_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/

/** Each distinct image once: data URL → its key in the page's image table. */
class InlineImages {
  readonly keys = new Map<string, string>()
  keyOf(dataUrl: string): string {
    let key = this.keys.get(dataUrl)
    if (key === undefined) this.keys.set(dataUrl, (key = `i${this.keys.size}`))
    return key
  }
  /** The image table as JSON in a data block; the report's script sets each `img[data-image]` from it. */
  render(): string {
    if (this.keys.size === 0) return ''
    const table = Object.fromEntries([...this.keys].map(([url, key]) => [key, url]))
    // Keys are `i<n>`, values match DATA_IMAGE_URL (base64 only): nothing here can close the element.
    return `<script type="application/json" id="av-images">${JSON.stringify(table)}</script>\n`
  }
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
  const inline = new InlineImages()
  const view: ImageView = { images: options.images, inline, baseDir: options.baseDir }
  const tests = report.tests.map((t) => renderTest(t, view)).join('\n')
  // The CSP makes "no external requests" a property of the file, not just of this renderer.
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<style>${HTML_STYLE}</style></head>
<body>
<header><h1>${e(title)}</h1>${renderRun(report)}
<label class="filter"><input type="checkbox" id="only-failing"> only tests with failed assertions or unjudgeable verdicts</label></header>
<main>
${tests || '<p class="empty">No tests with verdicts in this run.</p>'}
</main>
${inline.render()}<script>${HTML_SCRIPT}</script>
</body></html>
`
}

function renderRun(report: Report): string {
  const { run } = report
  const t = run.totals
  const cls: Record<string, string | undefined> = {
    'failed tests': t.failedTests > 0 ? 'fail' : undefined,
    failed: t.failed > 0 ? 'fail' : undefined,
    unjudgeable: t.unjudgeable > 0 ? 'unjudgeable' : undefined,
  }
  const cells: Array<[string, string, string?]> = totalsParts(t).map(([k, v]) => [k, v, cls[k]])
  const meta = [
    `started ${run.startedAt}`,
    run.runner ? `runner ${run.runner}` : '',
    `judge ${run.judge ?? 'none'}`,
    `mode ${run.mode}`,
  ].filter(Boolean)
  return `<p class="meta">${meta.map(e).join(' · ')}</p>
<table class="totals"><tr>${cells.map(([k]) => `<th>${e(k)}</th>`).join('')}</tr>
<tr>${cells.map(([, v, cls]) => `<td${cls ? ` class="${cls}"` : ''}>${e(v)}</td>`).join('')}</tr></table>`
}

interface ImageView {
  images?: ReadonlyMap<string, ImageEmbed>
  inline: InlineImages
  baseDir?: string
}

function renderTest(test: ReportTest, images: ImageView): string {
  const bad = test.verdicts.some((v) => assertionStatus(v) !== 'pass') || test.state === 'fail'
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

function renderVerdictRow(v: Verdict, names: ReadonlyMap<string, string>, images: ImageView): string {
  const spanName = v.spanId === undefined ? undefined : names.get(v.spanId)
  const where =
    v.level === 'span' ? `span ${spanName ? `${e(spanName)} ` : ''}<code>${e(v.spanId ?? '?')}</code>` : e(v.level)
  const details: string[] = []
  const note = judgedNote(v)
  if (note)
    details.push(
      `<div class="expected">${e(note)} — the assertion ${assertionStatus(v) === 'pass' ? 'passed' : 'failed'}</div>`,
    )
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
  // Row colour and symbol are the assertion's (a passing .not is green); the judge's word is in the title and note.
  const status = assertionStatus(v)
  return `<tr class="verdict ${status}"${v.id ? ` id="verdict-${e(v.id)}"` : ''}><td class="sym ${status}" title="${e(note ?? v.outcome)}">${OUTCOME_SYMBOL[status]}</td><td>${e(
    v.metric,
  )}</td><td>${where}</td><td class="score">${e(formatScoreVsThreshold(v))}</td><td>${details.join('')}</td></tr>`
}

function renderImage(image: NonNullable<Verdict['image']>, view: ImageView): string {
  const label = `${image.format} sha256:${image.digest.slice(0, 12)}…`
  const shown = image.source === undefined ? undefined : displaySource(image.source, view.baseDir)
  // By digest only: the embeds were checked against it, a source named in the report proves nothing.
  const embed = view.images?.get(image.digest)
  // Only data:image URLs reach src, so a crafted embed map cannot smuggle a script URL in.
  if (embed && 'dataUrl' in embed && DATA_IMAGE_URL.test(embed.dataUrl)) {
    return `<figure><img data-image="${view.inline.keyOf(embed.dataUrl)}" alt="${e(label)}"><figcaption>${shown ? `${e(shown)} · ` : ''}${e(label)}</figcaption></figure>`
  }
  const why = embed && 'skipped' in embed ? ` (not embedded: ${e(embed.skipped)})` : ''
  return `<div class="image-ref">image ${e(label)}${shown ? ` from <code>${e(shown)}</code>` : ''}${why}</div>`
}

/** A local path (or file: URL) relative to the project root, or only its file name: a report never shows where a machine keeps its files. */
export function displaySource(source: string, baseDir?: string): string {
  let path: string | undefined
  if (/^file:/i.test(source)) {
    try {
      path = fileURLToPath(source)
    } catch {
      return 'file URL'
    }
  } else if (isAbsolute(source) || /^[A-Za-z]:[\\/]/.test(source)) path = source
  if (path === undefined) return source
  if (baseDir) {
    const rel = relative(baseDir, path)
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/')
  }
  return basename(path.replace(/\\/g, '/'))
}

function renderTrace(trace: ReportTrace, verdicts: readonly Verdict[]): string {
  const index = indexSpans(trace)
  const children = new Map<string | null, ReportSpan[]>()
  for (const s of trace.spans) {
    const parent = s.parentId !== null && index.has(s.parentId) ? s.parentId : null
    children.set(parent, [...(children.get(parent) ?? []), s])
  }
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
    html.push(
      `<li class="span${item.failed ? ' failed' : ''}">${renderSpanLabel(item, verdictsOfSpan(item, verdicts))}`,
    )
    if (kids.length === 0) html.push('</li>')
    else {
      html.push('<ul>')
      stack.push('close', ...[...kids].reverse())
    }
  }
  // The same count the terminal shows: failing spans, then the ancestors propagation marked.
  return `<details class="trace" open><summary>${e(traceSummary(trace, verdicts))}</summary>
<ul class="tree">${html.join('')}</ul></details>`
}

function renderSpanLabel(span: ReportSpan, own: readonly Verdict[]): string {
  const items = own
    .map((v) => {
      const label = v.category
        ? `${v.category} (${v.metric} ${formatScoreVsThreshold(v)})`
        : `${v.metric} ${formatScoreVsThreshold(v)}`
      const anchor = v.id ? `<a href="#verdict-${e(v.id)}">${e(label)}</a>` : e(label)
      const status = assertionStatus(v)
      const note = judgedNote(v) ? ` [${e(judgedNote(v)!)}]` : ''
      return `<li class="span-verdict ${status}"><span class="sym ${status}">${OUTCOME_SYMBOL[status]}</span> ${anchor}${note}: ${e(v.reason)}</li>`
    })
    .join('')
  return `<span class="kind">${e(span.kind)}</span>:<span class="name">${e(span.name)}</span> <code class="id">${e(shortSpanId(span.id))}</code>${
    items ? `<ul class="span-verdicts">${items}</ul>` : ''
  }`
}
