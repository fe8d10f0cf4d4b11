import { describe, expect, test } from 'vitest'
import type { Vitest } from 'vitest/node'
import AgentVerdictReporter from '../../reporters/vitest-reporter'

const vitest = { config: { root: process.cwd() } } as unknown as Vitest

describe('agent-verdict/reporter options', () => {
  test('an invalid option fails the run at onInit, naming it and the valid ones', async () => {
    const reporter = new AgentVerdictReporter({ outFile: 'r.json' } as never)
    await expect(reporter.onInit(vitest)).rejects.toThrow(/invalid option.*outFile.*Valid options: outputFile/)
    await expect(new AgentVerdictReporter({ html: true } as never).onInit(vitest)).rejects.toThrow(
      /invalid option html/,
    )
    await expect(new AgentVerdictReporter('r.json' as never).onInit(vitest)).rejects.toThrow(/invalid option/)
  })

  test('valid and default options pass onInit', async () => {
    await expect(new AgentVerdictReporter().onInit(vitest)).resolves.toBeUndefined()
    await expect(new AgentVerdictReporter({}).onInit(vitest)).resolves.toBeUndefined()
    await expect(
      new AgentVerdictReporter({ outputFile: 'r.json', html: 'r.html', silent: true }).onInit(vitest),
    ).resolves.toBeUndefined()
  })
})
