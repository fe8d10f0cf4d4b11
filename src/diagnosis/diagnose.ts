import type { Trace } from '../trace/trace'
import type { Diagnosis, DiagnoseOptions } from './types'

/**
 * Diagnoses an agent run: deterministic detectors, then (with a judge) one multi-aspect judge call per
 * selected leaf span within a per-call token budget, propagation up the tree, and the agent-level pass.
 *
 * @example
 * const diagnosis = await diagnose(await loadTrace('run.json'), { judge: judgeFromEnv() })
 * if (!diagnosis.verdict.pass) console.log(diagnosis.verdict.reason)
 */
export async function diagnose(trace: Trace, options: DiagnoseOptions = {}): Promise<Diagnosis> {
  void trace
  void options
  throw new Error('diagnose: not implemented yet')
}
