// Vitest runs a setup file through its module runner: the worker asks Vitest's main process for the file,
// which transforms it then, while the worker waits. The main process itself is idle from the moment it forks
// the worker until the worker, about 100 ms later, asks for that file: the plugin has its setup entry
// transformed in that gap (decision 0031). Vite keeps the result, and the worker's request finds it.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'

/** The parts of Vitest's TestProject used here. */
export interface WarmableProject {
  config: { setupFiles: readonly string[]; environment?: string }
  vite: { environments: Record<string, { warmupRequest(url: string): Promise<void> } | undefined> }
}

/** A Vitest worker process: its entry point is one of Vitest's `dist/workers/*.js` files. */
const VITEST_WORKER = /[\\/]vitest[\\/]dist[\\/]workers[\\/][^\\/]+\.js$/

/**
 * Transforms the project's setup files that `isOurs` accepts as soon as Vitest forks its first worker process
 * (Node's `child_process` diagnostics channel), then stops listening. Never in the fork's way: it starts on
 * the next turn of the event loop. With the threads pool no process is forked and nothing happens. `andThen`
 * runs right after, in the same gap (the run's judge host loads its SDK there). Returns the function that
 * stops listening.
 *
 * @example
 * warmSetupWhenWorkerStarts(project, (file) => file.includes('agent-verdict'))
 */
export function warmSetupWhenWorkerStarts(
  project: WarmableProject,
  isOurs: (file: string) => boolean,
  andThen?: () => void,
): () => void {
  const onSpawn = (message: unknown): void => {
    const child = (message as { process?: { spawnargs?: unknown } }).process
    // Published as the child is created, before it is spawned: its arguments are known on the next turn, which
    // is also when the fork is out of the way.
    setImmediate(() => {
      const args = child?.spawnargs
      if (!Array.isArray(args) || !args.some((a) => typeof a === 'string' && VITEST_WORKER.test(a))) return
      if (done) return
      done = true
      stop()
      // Vitest transforms test and setup files of jsdom and happy-dom projects in the client environment.
      const name = ['jsdom', 'happy-dom'].includes(project.config.environment ?? '') ? 'client' : 'ssr'
      const environment = project.vite.environments[name]
      if (!environment) return
      // warmupRequest never rejects (Vite logs a failed transform); the worker's own request repeats a failure.
      for (const file of project.config.setupFiles.filter(isOurs)) void environment.warmupRequest(file)
      andThen?.()
    })
  }
  let done = false
  const stop = () => unsubscribe('child_process', onSpawn)
  subscribe('child_process', onSpawn)
  return stop
}
