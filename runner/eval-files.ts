// Which test files the Vitest plugin treats as evaluations (their tests run concurrently, with a
// judge-friendly timeout). The globs are also added to Vitest's `include`, so they are matched by the
// library and options Vitest lists test files with (picomatch as tinyglobby calls it, dot files included): a file
// Vitest runs as an eval file is one this says is an eval file, braces, extglobs and dotfiles included.
import { isAbsolute, relative, sep } from 'node:path'
import picomatch from 'picomatch'
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

// One compiled matcher per settings object (a worker has one), not one per test file.
const compiled = new WeakMap<readonly string[], (path: string) => boolean>()

/**
 * True when `file` (absolute, or relative to `root`) matches one of the globs, which are relative to `root`.
 *
 * @example
 * isEvalFile('/repo/evals/chart.eval.ts', { root: '/repo', evalFiles: DEFAULT_EVAL_FILES }) // true
 */
export function isEvalFile(file: string, settings: Pick<PluginSettings, 'root' | 'evalFiles'>): boolean {
  const rel = (isAbsolute(file) ? relative(settings.root, file) : file).split(sep).join('/')
  let matches = compiled.get(settings.evalFiles)
  if (!matches) compiled.set(settings.evalFiles, (matches = picomatch(settings.evalFiles, { dot: true, posix: true })))
  return matches(rel)
}
