import { describe, expectTypeOf, test } from 'vitest'
import { defineConfig } from 'vitest/config'
import { agentVerdict, type AgentVerdictPluginOptions } from '../../runner/vitest-plugin'

describe('agent-verdict/vitest-plugin types', () => {
  test('the plugin goes in `plugins` of a Vitest config, with or without options', () => {
    defineConfig({ plugins: [agentVerdict()] })
    defineConfig({
      plugins: [
        agentVerdict({
          evalFiles: ['evals/**/*.ts'],
          concurrency: 4,
          testTimeout: 60_000,
          reporter: { html: 'r.html' },
        }),
      ],
      test: { include: ['src/**/*.test.ts'] },
    })
    defineConfig({ plugins: [agentVerdict({ evalFiles: '**/*.eval.ts', reporter: false })] })
  })

  test('options are checked', () => {
    expectTypeOf<AgentVerdictPluginOptions['evalFiles']>().toEqualTypeOf<string | string[] | undefined>()
    // @ts-expect-error: concurrency is a number
    agentVerdict({ concurrency: '8' })
    // @ts-expect-error: unknown reporter option
    agentVerdict({ reporter: { htm: 'r.html' } })
  })
})
