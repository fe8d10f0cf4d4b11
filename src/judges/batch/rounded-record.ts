// Batch output lines (OpenAI Batch API, Bedrock batch inference) are JSON.parse'd before a verdict is read from
// them, which rounds a number written past a double's precision; both readers check the line as written first.
import { inexactNumber } from '../exact-numbers'
import type { BatchResult } from './queue'

/**
 * A record whose line writes a number JSON.parse rounds (a tool input score `3.9999999999999999` reads as 4) is
 * no verdict, as a live reply is not (docs/decisions/0036-numbers-as-written.md): the numbers are checked in the
 * line as written, before JSON.parse has rounded them.
 *
 * @example
 * const result = roundedRecord(key, line) ?? readRecord(key, JSON.parse(line))
 */
export function roundedRecord(key: string, line: string): BatchResult | undefined {
  const rounded = inexactNumber(line)
  if (rounded === undefined) return undefined
  return {
    key,
    status: 'failed',
    error: `the reply writes the number ${rounded.written.slice(0, 40)}, which JSON reads as ${rounded.reads}: a verdict is read as written, so this record gives none`,
  }
}
