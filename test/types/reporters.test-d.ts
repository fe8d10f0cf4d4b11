import type { Reporter as JestReporter } from '@jest/reporters'
import type { Config } from '@jest/types'
import { expectTypeOf, test } from 'vitest'
import type { Reporter as VitestReporter } from 'vitest/node'
import AgentVerdictJestReporter from '../../reporters/jest-reporter'
import AgentVerdictReporter, { type ReporterOptions } from '../../reporters/vitest-reporter'

test('the Vitest reporter is a Vitest Reporter taking the documented options', () => {
  expectTypeOf(
    new AgentVerdictReporter({ outputFile: 'r.json', html: 'r.html', githubSummary: true, silent: false }),
  ).toExtend<VitestReporter>()
  expectTypeOf<ConstructorParameters<typeof AgentVerdictReporter>[0]>().toEqualTypeOf<ReporterOptions | undefined>()
  // @ts-expect-error a misspelt option is a type error too (and a runtime error naming it)
  new AgentVerdictReporter({ outFile: 'r.json' })
  // @ts-expect-error html is a path or false
  new AgentVerdictReporter({ html: true })
})

test('the Jest reporter fits Jest’s Reporter interface and its (globalConfig, options) constructor', () => {
  const globalConfig = {} as Config.GlobalConfig
  expectTypeOf(new AgentVerdictJestReporter(globalConfig, { html: false })).toExtend<JestReporter>()
  expectTypeOf(new AgentVerdictJestReporter(globalConfig)).toExtend<JestReporter>()
})
