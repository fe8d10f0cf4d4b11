// Jest setupFilesAfterEnv entry: registers the agent-verdict matchers. Filled by the matchers issue.
export {}
