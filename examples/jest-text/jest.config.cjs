// Jest with agent-verdict: the setup entry registers the matchers, the reporter collects verdicts.
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/*.test.ts'],
  transform: { '^.+\\.ts$': '@swc/jest' },
  setupFilesAfterEnv: ['agent-verdict/jest'],
  reporters: ['default', 'agent-verdict/jest-reporter'],
  // A real judge can take a while per call.
  testTimeout: 120_000,
}
