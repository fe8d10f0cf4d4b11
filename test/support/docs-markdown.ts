// Reads the project's Markdown as GitHub renders it: headings and their anchors, relative links, and the code
// blocks marked `<!-- e2e: NAME -->` that the end-to-end tests run verbatim (docs/getting-started.md says why).
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { repo } from '../e2e/user-project'

/** The Markdown files the link checker and the marked-block check read: README.md and docs/**\/*.md. */
export function markdownFiles(root: string = repo): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
    )
  return [join(root, 'README.md'), ...walk(join(root, 'docs'))].map((f) => relative(root, f)).sort()
}

interface Line {
  text: string
  /** 1-based line number in the file. */
  line: number
  /** Inside a fenced code block (fence lines included). */
  code: boolean
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

function linesOf(markdown: string): Line[] {
  let fence: string | undefined
  return markdown.split('\n').map((text, i) => {
    const m = FENCE.exec(text)
    if (fence === undefined && m) {
      fence = m[1]
      return { text, line: i + 1, code: true }
    }
    if (fence !== undefined) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && m[2].trim() === '') fence = undefined
      return { text, line: i + 1, code: true }
    }
    return { text, line: i + 1, code: false }
  })
}

/**
 * GitHub's anchor for a heading's text: formatting removed, lower case, every character that is not a letter,
 * digit, space, `-` or `_` dropped, spaces turned into `-`.
 *
 * @example
 * slug('Cassettes: verdicts as snapshots') // 'cassettes-verdicts-as-snapshots'
 */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images keep their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, '')
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-')
}

/** Every anchor a file's headings give, with GitHub's `-1`, `-2` … for repeats. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const { text, code } of linesOf(markdown)) {
    const m = code ? null : /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)
    if (!m) continue
    const base = slug(m[1])
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

export interface Link {
  target: string
  line: number
}

/** The links of a file outside code (fenced blocks and inline code spans are not links). */
export function links(markdown: string): Link[] {
  const out: Link[] = []
  for (const { text, line, code } of linesOf(markdown)) {
    if (code) continue
    const prose = text.replace(/(`+)[^`]*?\1/g, '')
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], line })
  }
  return out
}

export interface MarkedBlock {
  file: string
  name: string
  /** The fence's info string (`sh`, `ts` …). */
  lang: string
  /** The block's text, without its fences, ending in a newline. */
  text: string
  line: number
}

const MARKER = /^<!--\s*e2e:\s*([a-z0-9-]+)\s*-->\s*$/

/**
 * The code blocks marked `<!-- e2e: NAME -->` on the line before their fence. A marker not followed by a fenced
 * block is an error: the check must not pass on a marker that marks nothing.
 */
export function markedBlocks(markdown: string, file: string): MarkedBlock[] {
  const lines = markdown.split('\n')
  const out: MarkedBlock[] = []
  lines.forEach((text, i) => {
    const marker = MARKER.exec(text.trim())
    if (!marker) {
      if (/<!--\s*e2e/.test(text)) throw new Error(`${file}:${i + 1}: malformed marker ${text.trim()}`)
      return
    }
    const fence = FENCE.exec(lines[i + 1] ?? '')
    if (!fence) throw new Error(`${file}:${i + 1}: marker e2e: ${marker[1]} is not followed by a fenced code block`)
    const end = lines.findIndex((l, j) => j > i + 1 && l.trim() === fence[1])
    if (end < 0) throw new Error(`${file}:${i + 2}: unclosed code block after marker e2e: ${marker[1]}`)
    out.push({
      file,
      name: marker[1],
      lang: fence[2].trim(),
      text: `${lines.slice(i + 2, end).join('\n')}\n`,
      line: i + 2,
    })
  })
  return out
}

/** Every marked block of README.md and docs/. */
export function allMarkedBlocks(root: string = repo): MarkedBlock[] {
  return markdownFiles(root).flatMap((f) => markedBlocks(readFileSync(join(root, f), 'utf8'), f))
}

/**
 * A marked block as `file` shows it (any file when not given; every copy of a name is identical: the docs test checks
 * it).
 *
 * @example
 * docBlock('vitest-config', 'docs/getting-started.md') // the getting-started guide's vitest.config.mts
 */
export function docBlock(name: string, file?: string): MarkedBlock {
  const found = allMarkedBlocks().find((b) => b.name === name && (file === undefined || b.file === file))
  if (!found) throw new Error(`no code block marked <!-- e2e: ${name} --> in ${file ?? 'README.md or docs/'}`)
  return found
}
