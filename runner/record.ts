// `agent-verdict/record` — the one line that records the agent's HTTP calls of a test file that is not an eval file
// of the Vitest plugin: `import 'agent-verdict/record'` at the top of a test file, or in Jest's `setupFilesAfterEnv`
// after `agent-verdict/jest`. Call `recordAgentCalls(options)` instead to narrow it.
import { recordAgentCalls } from '../src/recording/enable'

recordAgentCalls()

export { recordAgentCalls }
export type { RecordingOptions } from '../src/config/recording'
