import type { z } from 'zod'
import { usageMessage } from './messages'

/**
 * Validates a matcher's options with their schema; a bad option becomes a TypeError with the matcher
 * hint, the field, what was wrong and what is allowed.
 *
 * @example
 * const { args, times } = parseOptions(ToCallToolOptionsSchema, options, { name: 'toCallTool', allowed: '{ args?, times? }' })
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  value: unknown,
  hint: { name: string; args?: string; isNot?: boolean; allowed: string; what?: string },
): z.output<S> {
  const parsed = schema.safeParse(value ?? {})
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
  throw new TypeError(
    usageMessage(
      hint.name,
      hint.isNot,
      hint.args ?? '',
      `invalid ${hint.what ?? 'options'}: ${where}${issue.message} (allowed: ${hint.allowed})`,
    ),
  )
}
