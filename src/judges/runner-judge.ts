// The judge a programmatic `evaluate*` call uses when it runs inside a test: the runner entry (agent-verdict/vitest,
// /jest) registers how it wraps a judge for the running test — the test file's cassette, its mode, the test's
// deadline — so `evaluateCorrectness` in a test replays in CI as the matchers do (decision 0043). Kept on globalThis:
// the main entry and the runner entries are separate bundles, each with its own copy of this module.
import type { Judge } from './types'

/** Wraps a judge for the running test; `label` names the calling function in cassette entries. */
export type RunnerJudgeWrapper = (judge: Judge, label: string) => Promise<Judge>

const KEY = Symbol.for('agent-verdict.runner-judge')
type Slot = { [KEY]?: RunnerJudgeWrapper }

/**
 * Registers (or, with `undefined`, removes) the runner's wrapper. Called by the runner entries only.
 *
 * @example
 * setRunnerJudge(async (judge, label) => judgeForRunningTest(judge, label))
 */
export function setRunnerJudge(wrapper: RunnerJudgeWrapper | undefined): void {
  if (wrapper) (globalThis as Slot)[KEY] = wrapper
  else delete (globalThis as Slot)[KEY]
}

/**
 * The judge to call: wrapped by the runner when one registered (inside a Vitest or Jest test file), else as given.
 *
 * @example
 * const judge = await judgeInRunner(resolveJudge(options.judge), 'evaluateCorrectness')
 */
export async function judgeInRunner(judge: Judge, label: string): Promise<Judge> {
  const wrapper = (globalThis as Slot)[KEY]
  return wrapper ? wrapper(judge, label) : judge
}
