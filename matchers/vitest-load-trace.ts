// The code behind `agent-verdict/vitest-setup`'s trace matchers (see vitest-load-output.ts): span diagnosis,
// detectors and trace readers on top of the judges and cassettes.
export { syncMatchers, traceMatchers } from './trace-matchers'
export { finishFile } from '../runner/test-judge'
