// Which test files the Vitest plugin treats as evaluations (their tests run concurrently, with a
// judge-friendly timeout). A small glob matcher, so the setup entry loads no glob library.
import { isAbsolute, relative, sep } from 'node:path'
import type { RecordingOptions } from '../src/config/recording'

/** The plugin's default: every `*.eval.*` file, in any folder. */
export const DEFAULT_EVAL_FILES = ['**/*.eval.{ts,mts,js,mjs}']

/** What the plugin hands the setup entry through Vitest's `provide`/`inject` (JSON-safe). */
export interface PluginSettings {
  /** Globs relative to `root`. */
  evalFiles: string[]
  root: string
  /** Test timeout for eval files; absent when the user set one (theirs applies everywhere). */
  testTimeout?: number
  /** Agent recordings of eval files: their options, or `false` when turned off. */
  recordings?: RecordingOptions | false
}

/** The `provide` key the plugin sets and the setup entry reads. */
export const PLUGIN_SETTINGS_KEY = 'agentVerdictPlugin'

/**
 * Compiles a glob (`**`, `*`, `?`, `{a,b}`, `[abc]`) to an anchored RegExp over `/`-separated paths.
 * Throws with the glob named when a brace or bracket is left open.
 *
 * @example
 * globToRegExp('**\/*.eval.{ts,mts}').test('evals/chart.eval.ts') // true
 */
export function globToRegExp(glob: string): RegExp {
  let out = ''
  let braces = 0
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slashAfter = glob[i + 2] === '/'
        const atSegmentStart = i === 0 || glob[i - 1] === '/'
        if (atSegmentStart && slashAfter) {
          out += '(?:[^/]*/)*' // `**/`: zero or more folders
          i += 2
        } else {
          out += '.*'
          i += 1
        }
      } else out += '[^/]*'
    } else if (c === '?') out += '[^/]'
    else if (c === '{') {
      braces++
      out += '(?:'
    } else if (c === '}' && braces > 0) {
      braces--
      out += ')'
    } else if (c === ',' && braces > 0) out += '|'
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1)
      if (end < 0)
        throw new Error(`agent-verdict: evalFiles glob "${glob}" has an unclosed "[": close it or escape it as "\\["`)
      const body = glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\')
      out += `[${body}]`
      i = end
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeRegExp(glob[++i])
    } else out += escapeRegExp(c)
  }
  if (braces > 0)
    throw new Error(`agent-verdict: evalFiles glob "${glob}" has an unclosed "{": close it or escape it as "\\{"`)
  return new RegExp(`^${out}$`)
}

function escapeRegExp(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c
}

/**
 * True when `file` (absolute, or relative to `root`) matches one of the globs, which are relative to `root`.
 *
 * @example
 * isEvalFile('/repo/evals/chart.eval.ts', { root: '/repo', evalFiles: DEFAULT_EVAL_FILES }) // true
 */
export function isEvalFile(file: string, settings: Pick<PluginSettings, 'root' | 'evalFiles'>): boolean {
  const rel = (isAbsolute(file) ? relative(settings.root, file) : file).split(sep).join('/')
  return settings.evalFiles.some((glob) => globToRegExp(glob).test(rel))
}
