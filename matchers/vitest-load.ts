// The code behind `agent-verdict/vitest-setup`'s matchers, loaded once per worker in the background while
// Vitest loads the first test file (decision 0031): matchers, judges, cassettes and their zod schemas.
export { asyncMatchers, syncMatchers } from './index'
export { finishFile } from './test-judge'
