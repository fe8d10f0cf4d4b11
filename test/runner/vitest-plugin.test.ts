// The plugin's config decisions, with Vitest's hooks called directly (the e2e tests run it for real).
import { describe, expect, it, vi } from 'vitest'
import { defaultInclude } from 'vitest/config'
import { agentVerdict, EVAL_TEST_TIMEOUT } from '../../runner/vitest-plugin'
import { PLUGIN_SETTINGS_KEY } from '../../runner/eval-files'

type Hook = (...args: any[]) => unknown
const hook = (plugin: object, name: string): Hook => (plugin as Record<string, Hook>)[name]

function apply(
  options: Parameters<typeof agentVerdict>[0],
  test: Record<string, unknown> = {},
  resolved: { testTimeout?: number; reporters?: Array<[string, unknown]> } = {},
) {
  const plugin = agentVerdict(options)
  const config: { test: Record<string, any> } = { test: { ...test } }
  hook(plugin, 'config')(config)
  const provided: Record<string, unknown> = {}
  const reporters = resolved.reporters ?? [['default', {}]]
  hook(
    plugin,
    'configureVitest',
  )({
    vitest: { config: { reporters } },
    project: {
      config: { root: '/repo', testTimeout: resolved.testTimeout ?? 5_000 },
      provide: (key: string, value: unknown) => (provided[key] = value),
    },
  })
  return { test: config.test, provided: provided[PLUGIN_SETTINGS_KEY] as Record<string, unknown>, reporters }
}

describe('agentVerdict({ recordings })', () => {
  it('hands eval files their recording options, or false to turn recordings off', () => {
    expect(apply({ recordings: { skipHosts: ['telemetry.example.com'] } }).provided.recordings).toEqual({
      skipHosts: ['telemetry.example.com'],
    })
    expect(apply({ recordings: false }).provided.recordings).toBe(false)
  })

  it('refuses options it does not know, saying what to write', () => {
    expect(() => apply({ recordings: { skip: ['x'] } as never })).toThrow(
      /unknown option "skip" — use hosts, skipHosts or ignoreBodyFields/,
    )
    expect(() => apply({ recordings: { hosts: [''] } })).toThrow(/hosts must be a list of non-empty strings/)
  })
})

describe('agentVerdict()', () => {
  it('with no option: setup file, eval files included, the judge’s limit as maxConcurrency, the timeout for eval files, the reporter', () => {
    const { test, provided, reporters } = apply(undefined)
    expect(test.setupFiles).toEqual(['agent-verdict/vitest-setup'])
    expect(test.include).toEqual([...defaultInclude, '**/*.eval.{ts,mts,js,mjs}'])
    expect(test.maxConcurrency).toBe(8)
    expect(test.testTimeout).toBeUndefined() // ordinary files keep Vitest's default
    expect(provided).toEqual({
      evalFiles: ['**/*.eval.{ts,mts,js,mjs}'],
      root: '/repo',
      testTimeout: EVAL_TEST_TIMEOUT,
      recordings: {},
    })
    expect(reporters).toEqual([
      ['default', {}],
      ['agent-verdict/reporter', {}],
    ])
  })

  it('keeps what the user configured: their setup files (after ours, never ours twice), include, maxConcurrency', () => {
    const { test } = apply(
      { concurrency: 4 },
      { setupFiles: ['./my-setup.ts', 'agent-verdict/vitest'], include: ['src/**/*.test.ts'], maxConcurrency: 3 },
    )
    expect(test.setupFiles).toEqual(['./my-setup.ts', 'agent-verdict/vitest'])
    expect(test.include).toEqual(['src/**/*.test.ts', '**/*.eval.{ts,mts,js,mjs}'])
    expect(test.maxConcurrency).toBe(3)
    expect(apply({ concurrency: 4 }, { setupFiles: './my-setup.ts' }).test.setupFiles).toEqual([
      'agent-verdict/vitest-setup',
      './my-setup.ts',
    ])
    // Either entry is the setup: a config listing the light one keeps its place too.
    expect(apply(undefined, { setupFiles: ['./a.ts', 'agent-verdict/vitest-setup'] }).test.setupFiles).toEqual([
      './a.ts',
      'agent-verdict/vitest-setup',
    ])
    expect(apply({ concurrency: 4 }).test.maxConcurrency).toBe(4)
  })

  it('takes its default from AGENT_VERDICT_CONCURRENCY, the run’s judge limit', () => {
    vi.stubEnv('AGENT_VERDICT_CONCURRENCY', '3')
    try {
      expect(apply(undefined).test.maxConcurrency).toBe(3)
      expect(apply({ concurrency: 4 }).test.maxConcurrency).toBe(4)
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('leaves the timeout alone when the config or --testTimeout set one', () => {
    expect(apply(undefined, { testTimeout: 10_000 }).provided).not.toHaveProperty('testTimeout')
    expect(apply(undefined, {}, { testTimeout: 30_000 }).provided).not.toHaveProperty('testTimeout')
    expect(apply({ testTimeout: 60_000 }).provided).toMatchObject({ testTimeout: 60_000 })
  })

  it('adds the reporter once, with its options; reporter: false leaves reporters alone', () => {
    expect(apply({ reporter: { html: 'r.html' } }).reporters).toEqual([
      ['default', {}],
      ['agent-verdict/reporter', { html: 'r.html' }],
    ])
    const already: Array<[string, unknown]> = [
      ['verbose', {}],
      ['agent-verdict/reporter', { silent: true }],
    ]
    expect(apply(undefined, {}, { reporters: already }).reporters).toEqual([
      ['verbose', {}],
      ['agent-verdict/reporter', { silent: true }],
    ])
    expect(apply({ reporter: false }).reporters).toEqual([['default', {}]])
  })

  it('uses custom eval globs', () => {
    const { test, provided } = apply({ evalFiles: 'evals/**/*.ts' })
    expect(test.include).toContain('evals/**/*.ts')
    expect(provided.evalFiles).toEqual(['evals/**/*.ts'])
  })

  it('rejects bad options with what to write instead', () => {
    expect(() => agentVerdict({ concurrency: 0 })).toThrow(
      'agentVerdict({ concurrency }) must be a positive integer, got 0',
    )
    expect(() => agentVerdict({ testTimeout: 1.5 })).toThrow(
      'agentVerdict({ testTimeout }) must be a positive integer, got 1.5',
    )
    expect(() => agentVerdict({ evalFiles: [] })).toThrow(
      /evalFiles \}\) must be a glob or a non-empty list of globs, e\.g\. '\*\*\/\*\.eval\.ts'/,
    )
    expect(() => agentVerdict({ evalFiles: ['  '] })).toThrow(/must be a glob/)
  })
})
