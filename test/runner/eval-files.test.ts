import { describe, expect, it } from 'vitest'
import { DEFAULT_EVAL_FILES, globToRegExp, isEvalFile } from '../../runner/eval-files'

describe('globToRegExp', () => {
  it.each([
    ['**/*.eval.{ts,mts,js,mjs}', 'chart.eval.ts', true],
    ['**/*.eval.{ts,mts,js,mjs}', 'evals/deep/chart.eval.mjs', true],
    ['**/*.eval.{ts,mts,js,mjs}', 'evals/chart.eval.tsx', false],
    ['**/*.eval.{ts,mts,js,mjs}', 'evals/chart.test.ts', false],
    ['**/*.eval.{ts,mts,js,mjs}', 'evals/chartXeval.ts', false], // the dot is literal
    ['evals/**', 'evals/a/b/c.ts', true],
    ['evals/**', 'other/evals/c.ts', false],
    ['evals/*.ts', 'evals/a/c.ts', false], // * stays within one folder
    ['evals/?.ts', 'evals/a.ts', true],
    ['evals/?.ts', 'evals/ab.ts', false],
    ['evals/[ab].ts', 'evals/b.ts', true],
    ['evals/[!ab].ts', 'evals/b.ts', false],
    ['evals/[!ab].ts', 'evals/c.ts', true],
    ['a+b(c)/*.ts', 'a+b(c)/x.ts', true], // regex specials are literal
    ['\\{x\\}.ts', '{x}.ts', true],
  ])('%s against %s → %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected)
  })

  it('names the glob and the fix when a brace or bracket is left open', () => {
    expect(() => globToRegExp('**/*.{ts,js')).toThrow(/evalFiles glob "\*\*\/\*\.\{ts,js" has an unclosed "\{"/)
    expect(() => globToRegExp('evals/[ab.ts')).toThrow(/unclosed "\["/)
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
