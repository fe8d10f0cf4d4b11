// Decision 0043: what each runner's state says about a file's tests after they ran — the input of the stale-entry rule.
import { describe, expect, it } from 'vitest'
import { jestFileRun } from '../../runner/jest-state'
import { vitestFileRun, vitestProjectName } from '../../runner/vitest-state'

describe('vitestFileRun', () => {
  it('passed tests by full name; a filtered or failed test is declared, not passed; a shared name passes only if all did', () => {
    const test = (fullTestName: string, mode: string, state?: string) => ({
      type: 'test',
      mode,
      fullTestName,
      result: state ? { state } : undefined,
    })
    const suite = {
      tasks: [
        test('a', 'run', 'pass'),
        { type: 'suite', mode: 'run', tasks: [test('s > b', 'run', 'fail'), test('s > c', 'skip')] },
        test('twice', 'run', 'pass'),
        test('twice', 'run', 'fail'),
      ],
    }
    expect(vitestFileRun(suite)).toEqual({
      passed: new Set(['a']),
      declared: new Set(['a', 's > b', 's > c', 'twice']),
      allRan: false,
      complete: false,
    })
    const green = { tasks: [test('a', 'run', 'pass'), test('b', 'run', 'pass')] }
    expect(vitestFileRun(green)).toMatchObject({ allRan: true, complete: true })
  })

  it('reads the project name from the worker config; none outside named projects', () => {
    const g = globalThis as { __vitest_worker__?: unknown }
    const saved = g.__vitest_worker__
    try {
      g.__vitest_worker__ = { config: { name: 'unit' } }
      expect(vitestProjectName()).toBe('unit')
      g.__vitest_worker__ = { config: { name: '' } }
      expect(vitestProjectName()).toBeUndefined()
    } finally {
      g.__vitest_worker__ = saved
    }
  })
})

describe('jestFileRun', () => {
  it('names tests as currentTestName does (describe titles joined by spaces); skipped ones are declared, not passed', () => {
    const symbol = Symbol('JEST_STATE_SYMBOL')
    const g = globalThis as Record<symbol, unknown>
    const test = (name: string, status: string | null, errors: unknown[] = []) => ({
      type: 'test',
      name,
      status,
      errors,
    })
    try {
      g[symbol] = {
        testNamePattern: /refund/,
        rootDescribeBlock: {
          type: 'describeBlock',
          name: 'ROOT_DESCRIBE_BLOCK',
          children: [
            {
              type: 'describeBlock',
              name: 'refund',
              children: [test('is right', 'done'), test('is polite', 'done', [new Error('x')])],
            },
            test('other', 'skip'),
          ],
        },
      }
      expect(jestFileRun()).toEqual({
        passed: new Set(['refund is right']),
        declared: new Set(['refund is right', 'refund is polite', 'other']),
        allRan: false,
        complete: false,
      })
    } finally {
      delete g[symbol]
    }
    // No circus state: nothing passed, nothing ran, so nothing is pruned.
    expect(jestFileRun()).toMatchObject({ passed: new Set(), allRan: false, complete: false })
  })
})
