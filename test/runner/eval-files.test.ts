import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { glob } from 'tinyglobby'
import { afterAll, describe, expect, it } from 'vitest'
import { DEFAULT_EVAL_FILES, isEvalFile } from '../../runner/eval-files'

// The files of a project, and globs on which the former hand-written matcher and Vitest disagreed (extglobs,
// POSIX classes, `**` inside a segment, a leading `./`) or could (braces, dotfiles, nested braces).
const FILES = [
  'chart.eval.ts',
  'evals/deep/chart.eval.mjs',
  'evals/chart.eval.tsx',
  'evals/chart.test.ts',
  'evals/chartXeval.ts',
  'evals/a.eval.ts',
  'evals/b.eval.ts',
  'evals/ab.eval.ts',
  'evals/x/y.eval.ts',
  'evals9.ts',
  '.hidden/secret.eval.ts',
  'evals/.dot.eval.ts',
  'a+b(c)/x.ts',
  'src/x.ts',
]

const GLOBS = [
  ...DEFAULT_EVAL_FILES,
  'evals/**',
  'evals/*.ts',
  'evals/?.eval.ts',
  'evals/[ab].eval.ts',
  'evals/[!a].eval.ts',
  'evals/@(a|b).eval.ts', // extglob: the old matcher took it literally
  'evals/!(a).eval.ts',
  'evals/+(a|b).eval.ts',
  'evals/[[:alpha:]].eval.ts', // POSIX class
  'evals**.ts', // `**` inside a segment is `*` to Vitest; the old matcher crossed folders
  './evals/*.eval.ts', // a leading ./
  'evals/{a,{b,ab}}.eval.ts',
  '**/.hidden/*.ts',
  '*.eval.ts',
  'a+b(c)/*.ts',
]

const root = mkdtempSync(join(tmpdir(), 'av-eval-files-'))
for (const file of FILES) {
  mkdirSync(dirname(join(root, file)), { recursive: true })
  writeFileSync(join(root, file), '')
}
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('isEvalFile agrees with the files Vitest runs for the same include', () => {
  it.each(GLOBS)('%s', async (pattern) => {
    // What Vitest 4 does to list a project's test files (Vitest#globFiles): tinyglobby, dot files included.
    const vitest = await glob([pattern], { cwd: root, dot: true, expandDirectories: false })
    const ours = FILES.filter((file) => isEvalFile(join(root, file), { root, evalFiles: [pattern] }))
    expect(ours.sort()).toEqual(vitest.sort())
  })
})

describe('isEvalFile', () => {
  const settings = { root: '/repo', evalFiles: DEFAULT_EVAL_FILES }

  it('matches absolute test paths relative to the root, and relative ones as given', () => {
    expect(isEvalFile('/repo/evals/chart.eval.ts', settings)).toBe(true)
    expect(isEvalFile('/repo/chart.eval.ts', settings)).toBe(true)
    expect(isEvalFile('/repo/src/chart.test.ts', settings)).toBe(false)
    expect(isEvalFile('evals/chart.eval.ts', settings)).toBe(true)
  })

  it('uses the configured globs, any of which may match', () => {
    const custom = { root: '/repo', evalFiles: ['evals/**/*.ts', 'judged/*.test.ts'] }
    expect(isEvalFile('/repo/evals/a/b.ts', custom)).toBe(true)
    expect(isEvalFile('/repo/judged/x.test.ts', custom)).toBe(true)
    expect(isEvalFile('/repo/src/x.eval.ts', custom)).toBe(false)
  })
})
