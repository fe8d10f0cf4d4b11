// `agent-verdict fake-judge`: runs the local OpenAI-compatible fake judge server (implementation in progress).

/** Options for {@link fakeJudgeCommand}; `signal` stops the server in-process (tests, embedding). */
export interface FakeJudgeCommandOptions {
  signal?: AbortSignal
}

/**
 * `agent-verdict fake-judge [--port N] [--rules rules.json] [--latency ms] [--host 127.0.0.1]`.
 * @example
 * process.exitCode = await fakeJudgeCommand(['--port', '4010'])
 */
export async function fakeJudgeCommand(argv: string[], _options: FakeJudgeCommandOptions = {}): Promise<number> {
  process.stderr.write(`agent-verdict fake-judge: not implemented yet (${argv.join(' ')})\n`)
  return 2
}
