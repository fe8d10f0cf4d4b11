/**
 * `agent-verdict/testing`: test your eval code without keys, against a local OpenAI-compatible fake judge
 * with scripted verdicts, latency and fault injection.
 *
 * @example
 * import { afterAll, beforeAll, test } from 'vitest'
 * import { startFakeJudge, type FakeJudge } from 'agent-verdict/testing'
 *
 * let judge: FakeJudge
 * beforeAll(async () => {
 *   judge = await startFakeJudge({
 *     rules: [{ when: { contains: 'EMEA' }, respond: { verdict: 'fail', reason: 'wrong region' } }],
 *   })
 *   process.env.AGENT_VERDICT_JUDGE = `openai-compatible:${judge.baseURL}#fake`
 * })
 * afterAll(() => judge.close())
 *
 * test('judge calls are scripted', async () => {
 *   // … run code that calls the judge, then inspect judge.calls / judge.stats
 * })
 * @module
 */

// --- the server ---
export { startFakeJudge, type FakeJudge } from './fake-judge'

// --- rules, faults and options (zod schemas + types) ---
export {
  FakeJudgeCallSchema,
  FakeJudgeDefaultVerdictSchema,
  FakeJudgeFaultSchema,
  FakeJudgeLatencySchema,
  FakeJudgeOptionsSchema,
  FakeJudgeRespondSchema,
  FakeJudgeRuleSchema,
  FakeJudgeRulesFileSchema,
  FakeJudgeStatsSchema,
  PromptMatchSchema,
  type FakeJudgeCall,
  type FakeJudgeDefaultVerdict,
  type FakeJudgeFault,
  type FakeJudgeLatency,
  type FakeJudgeOptions,
  type FakeJudgeRespond,
  type FakeJudgeRule,
  type FakeJudgeRulesFile,
  type FakeJudgeStats,
  type PromptMatch,
} from './schemas'

// --- rules files ---
export { FakeJudgeConfigError, loadFakeJudgeRules, parseFakeJudgeRules } from './config'
