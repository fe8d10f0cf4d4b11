// The CLI's own usage errors: Node's parseArgs text ("To specify a positional argument starting with a '-' …")
// becomes one line that names the flag, and the closest accepted flag when the flag is misspelt.
import { closestName } from '../config/suggest'

/** A usage or input error: the command prints its message (and usage) and exits 2. */
export class UsageError extends Error {}

/** The option table of a parseArgs call, as far as messages need it. */
type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>

/**
 * The message for an error thrown by `parseArgs` with `options`: an unknown flag with "did you mean", a flag
 * missing its value, a switch given a value, an argument the command takes none of. Any other error keeps its
 * own message.
 *
 * @example
 * usageMessage(err, { judge: { type: 'string' } }) // "unknown option --jdge (did you mean --judge?)"
 */
export function usageMessage(error: unknown, options: Options): string {
  const e = error as { code?: unknown; message?: unknown }
  const message = typeof e?.message === 'string' ? e.message : String(error)
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? ''
  if (e?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = quoted.split('=')[0]
    const name = flag.replace(/^-+/, '')
    const long = Object.keys(options)
    const match =
      flag.startsWith('--') || name.length > 1
        ? closestName(name, long)
        : Object.entries(options).find(([, o]) => o.short?.toLowerCase() === name.toLowerCase())?.[0]
    const hint = match ? ` (did you mean --${match}?)` : ''
    return `unknown option ${flag}${hint}`
  }
  if (e?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /--[\w-]+/.exec(quoted)?.[0] ?? quoted
    if (/argument missing/.test(message)) return `${flag} needs a value (${flag} <value>)`
    if (/does not take an argument/.test(message)) return `${flag} is a switch and takes no value (write ${flag} alone)`
  }
  if (e?.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument "${quoted}": this command takes options only`
  return message
}

/**
 * "unknown subcommand" with the closest accepted one, for commands with subcommands (`report`, `batch`).
 *
 * @example
 * unknownSubcommand('gaet', ['merge', 'gate']) // 'unknown subcommand "gaet" (did you mean "gate"?)'
 */
export function unknownSubcommand(word: string | undefined, accepted: readonly string[]): string {
  if (word === undefined) return `missing subcommand (one of ${accepted.join(', ')})`
  const match = closestName(word, accepted)
  return `unknown subcommand "${word}"${match ? ` (did you mean "${match}"?)` : `; accepted: ${accepted.join(', ')}`}`
}

/**
 * A usage error as a command prints it: what is wrong, then where the options are — not the whole usage text,
 * whose other lines are about other mistakes.
 *
 * @example
 * stderr.write(usageLine('report', 'html takes exactly one report file'))
 */
export function usageLine(command: string, problem: string): string {
  return `agent-verdict ${command}: ${problem}\nRun \`agent-verdict ${command} --help\` for its usage.\n`
}
