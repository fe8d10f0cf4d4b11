// `agent-verdict` command line entry.
export async function main(argv: string[]): Promise<number> {
  process.stderr.write(`agent-verdict: not implemented yet (${argv.join(' ')})\n`)
  return 2
}
