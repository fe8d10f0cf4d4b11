// The meta key alone, without the schemas of src/verdict/meta.ts: the matchers only write under it, and
// importing it must not build the verdict and report schemas in every test worker (decision 0031).

/**
 * The key under which matchers store verdicts on a test's `task.meta` (Vitest) or in the per-worker
 * verdict log (Jest). The one channel between matchers and reporters; JSON-safe by construction.
 */
export const VERDICT_META_KEY = 'agentVerdict'
