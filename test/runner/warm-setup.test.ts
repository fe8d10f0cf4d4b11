import { spawn } from 'node:child_process'
import { afterEach, describe, expect, test } from 'vitest'
import { warmSetupWhenWorkerStarts, type WarmableProject } from '../../runner/warm-setup'

const OURS = '/p/node_modules/agent-verdict/dist/vitest-setup.js'
const USERS = '/p/test/setup.ts'

function project(environment?: string): { project: WarmableProject; warmed: Array<[string, string]> } {
  const warmed: Array<[string, string]> = []
  const env = (name: string) => ({
    warmupRequest: async (url: string) => {
      warmed.push([name, url])
    },
  })
  return {
    warmed,
    project: {
      config: { setupFiles: [OURS, USERS], environment },
      vite: { environments: { ssr: env('ssr'), client: env('client') } },
    },
  }
}

/** Spawns a short-lived Node process whose arguments are `args`, and waits for it to exit. */
function child(...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', '0', ...args], { stdio: 'ignore' })
    p.on('error', reject)
    p.on('exit', () => resolve())
  })
}

const tick = () => new Promise((r) => setImmediate(r))
const stops: Array<() => void> = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
})

describe('warmSetupWhenWorkerStarts', () => {
  test('transforms our setup entry once Vitest forks a worker, not for other child processes, and only once', async () => {
    const { project: p, warmed } = project()
    stops.push(warmSetupWhenWorkerStarts(p, (f) => f === OURS))
    await child('--some', 'tool.js')
    await tick()
    expect(warmed).toEqual([])
    await child('/p/node_modules/vitest/dist/workers/forks.js')
    await tick()
    expect(warmed).toEqual([['ssr', OURS]]) // the user's setup file is left to Vitest
    await child('/p/node_modules/vitest/dist/workers/forks.js')
    await tick()
    expect(warmed).toEqual([['ssr', OURS]])
  })

  test('uses the client environment for jsdom and happy-dom projects, as Vitest does', async () => {
    for (const environment of ['jsdom', 'happy-dom']) {
      const { project: p, warmed } = project(environment)
      stops.push(warmSetupWhenWorkerStarts(p, (f) => f === OURS))
      await child('C:\\p\\node_modules\\vitest\\dist\\workers\\forks.js')
      await tick()
      expect(warmed).toEqual([['client', OURS]])
    }
  })

  test('stopped before any worker starts, it does nothing', async () => {
    const { project: p, warmed } = project()
    warmSetupWhenWorkerStarts(p, () => true)()
    await child('/p/node_modules/vitest/dist/workers/forks.js')
    await tick()
    expect(warmed).toEqual([])
  })
})
