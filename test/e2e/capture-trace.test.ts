// Issue 32: `captureTrace` gives each of 8 concurrent tests only its own spans, under the real Vitest CLI (the
// plugin's eval-file concurrency) and Jest (test.concurrent), with no provider registered and with the user's
// own NodeTracerProvider plus agentVerdictSpanProcessor() — the built package, imported by name.
// On a current runtime (runtime.ts, issue 38) the project has OpenTelemetry JS 3 instead, as a user starting today
// does: no sdk-trace-base (captureTrace installs sdk-trace's TracerProvider), and the own provider is a NodeSDK.
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { jestCli, runtimeHas, vitestCli } from './runtime'
import { makeProject, run, usePackageUnderTest } from './user-project'

const otel3 = runtimeHas('@opentelemetry/sdk-node')
const OTEL = otel3
  ? ['@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/context-async-hooks', '@opentelemetry/sdk-node']
  : [
      '@opentelemetry/api',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/context-async-hooks',
      '@opentelemetry/sdk-trace-node',
    ]

function makeCaptureProject(deps: string[]): string {
  const project = makeProject('capture-trace', pkg.dir, deps)
  cleanup.push(project)
  if (otel3) copyFileSync(join(project, 'own-provider-sdk-node.ts'), join(project, 'own-provider.ts'))
  return project
}
const cleanup: string[] = []

const pkg = usePackageUnderTest(300_000)

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

describe('captureTrace in a user project', () => {
  it('Vitest with agentVerdict(): 8 concurrent tests per eval file, each with only its own spans', async () => {
    const project = makeCaptureProject(['vitest', ...OTEL])
    const result = await run(project, [vitestCli(project), 'run', '--reporter=verbose'], {})
    expect(result.code, result.output).toBe(0)
    for (const file of ['no-provider.eval.ts', 'own-provider.eval.ts'])
      for (let i = 0; i < 8; i++)
        expect(result.output).toMatch(new RegExp(`✓ ${file} > case ${i} gets only its own spans`))
    expect(result.output).toMatch(/Tests {2}16 passed \(16\)/)
    // Each file's runs overlapped (its afterAll checks at least 4 at once and prints the figure).
    expect(result.output.match(/capture-trace: at most \d runs at once/g)).toHaveLength(2)
  }, 180_000)

  it('Jest with test.concurrent: the same 8 cases per file pass', async () => {
    const project = makeCaptureProject(['jest', '@swc/jest', '@jest/globals', ...OTEL])
    const result = await run(project, [jestCli(project), '--cacheDirectory', '.jest-cache', '--verbose'], {})
    expect(result.code, result.output).toBe(0)
    expect(result.output).toMatch(/Tests: {7}16 passed, 16 total/)
    expect(result.output.match(/capture-trace: at most \d runs at once/g)).toHaveLength(2)
  }, 180_000)
})
