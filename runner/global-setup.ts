// `agent-verdict/global-setup` — one line in `globalSetup` (Vitest or Jest) starts the run-wide judge
// coordinator: every worker's judge calls then share one concurrency limit, one 429 back-off and an
// optional requests-per-minute cap. See docs/decisions/0023-run-wide-judge-limit.md.
import {
  COORDINATOR_ENV,
  COORDINATOR_PROVIDE_KEY,
  COORDINATOR_TOKEN_ENV,
  COORDINATOR_TOKEN_PROVIDE_KEY,
  formatCoordinatorStats,
  startCoordinator,
} from '../src/judges/coordinator'
import { registerSecret } from '../src/config/secrets'

/** Where the reporters find the run's limiter figures (same process, no import needed). */
const SUMMARY_KEY = Symbol.for('agent-verdict.run-limit-summary')

interface VitestProjectLike {
  provide?: (key: string, value: unknown) => void
}

/**
 * Vitest calls it with the project (`provide` reaches threads and forks workers through `inject`);
 * Jest calls it with its config and ignores the returned teardown — its workers inherit
 * `AGENT_VERDICT_COORDINATOR` from the environment, and the unreferenced server ends with the process.
 *
 * @example
 * // vitest.config.ts
 * test: { globalSetup: ['agent-verdict/global-setup'], setupFiles: ['agent-verdict/vitest'], reporters: ['default', 'agent-verdict/reporter'] }
 * // jest.config.js
 * globalSetup: 'agent-verdict/global-setup'
 */
export default async function setup(project?: VitestProjectLike): Promise<() => Promise<void>> {
  const coordinator = await startCoordinator()
  // Set before workers are spawned: child processes and Jest workers copy the environment then.
  process.env[COORDINATOR_ENV] = coordinator.address
  process.env[COORDINATOR_TOKEN_ENV] = coordinator.token
  // It lets a local process spend the run's judge credentials: never printed, never in a report.
  registerSecret(coordinator.token)
  if (project && typeof project.provide === 'function') {
    project.provide(COORDINATOR_PROVIDE_KEY, coordinator.address)
    project.provide(COORDINATOR_TOKEN_PROVIDE_KEY, coordinator.token)
  }
  let printed = false
  const summary = (): string => {
    printed = true
    return formatCoordinatorStats(coordinator.stats())
  }
  ;(globalThis as Record<symbol, unknown>)[SUMMARY_KEY] = summary
  return async () => {
    // The reporter prints the line in its summary; without one, say it here.
    if (!printed) {
      const line = formatCoordinatorStats(coordinator.stats())
      if (line) process.stderr.write(`agent-verdict: ${line}\n`)
    }
    delete (globalThis as Record<symbol, unknown>)[SUMMARY_KEY]
    if (process.env[COORDINATOR_ENV] === coordinator.address) delete process.env[COORDINATOR_ENV]
    if (process.env[COORDINATOR_TOKEN_ENV] === coordinator.token) delete process.env[COORDINATOR_TOKEN_ENV]
    await coordinator.close()
  }
}
