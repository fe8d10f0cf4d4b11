// Jest reporter entry (`agent-verdict/jest-reporter`). Filled by the reporter issue.
export default class AgentVerdictJestReporter {}
