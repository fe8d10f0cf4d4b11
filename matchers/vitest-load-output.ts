// The code behind `agent-verdict/vitest-setup`'s output matchers, loaded once per worker in the background while
// Vitest loads a test file that names one (decision 0031): the matchers, judges, cassettes and their zod schemas.
export { outputMatchers } from './output-matchers'
export { finishFile } from '../runner/test-judge'
