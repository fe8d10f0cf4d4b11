// Vitest reporter entry (`agent-verdict/reporter`). Filled by the reporter issue.
export default class AgentVerdictReporter {}
