import type { TraceWarning } from '../trace'

/** What {@link ReadContext.mark} saves: the warning count per trace and the traces already told about unparsed payloads. */
export interface ContextMark {
  counts: Map<string, number>
  unparsed: Set<string>
  tokens: Map<string, number>
}

/** `token-counts` warnings listed per trace; the last one listed says that more are not. */
export const MAX_TOKEN_WARNINGS = 5

/**
 * State shared by the readers while one input is read: the source file (for error messages) and the
 * warnings collected per trace id (a file may hold several traces).
 */
export class ReadContext {
  readonly source?: string
  private readonly byTrace = new Map<string, TraceWarning[]>()
  private readonly unparsedSeen = new Set<string>()
  private readonly tokenWarnings = new Map<string, number>()

  constructor(source?: string) {
    this.source = source
  }

  warn(traceId: string, warning: TraceWarning): void {
    let list = this.byTrace.get(traceId)
    if (!list) this.byTrace.set(traceId, (list = []))
    list.push(warning)
  }

  /** One `unparsed-payload` warning per trace: every step span of a smolagents run has the same repr. */
  warnUnparsed(traceId: string, spanId: string, spanName: string, what: string): void {
    if (this.unparsedSeen.has(traceId)) return
    this.unparsedSeen.add(traceId)
    this.warn(traceId, {
      code: 'unparsed-payload',
      spanId,
      message: `span ${spanId} (${spanName}): ${what}; kept as the raw string (reported once per trace)`,
    })
  }

  /**
   * A `token-counts` warning (unreadable count, total below its parts), at most {@link MAX_TOKEN_WARNINGS} per
   * trace: an exporter that writes `"n/a"` does so on every span.
   */
  warnTokens(traceId: string, spanId: string, spanName: string, problem: string): void {
    const n = (this.tokenWarnings.get(traceId) ?? 0) + 1
    this.tokenWarnings.set(traceId, n)
    if (n > MAX_TOKEN_WARNINGS) return
    const more = n === MAX_TOKEN_WARNINGS ? ' (further token-count problems of this trace are not listed)' : ''
    this.warn(traceId, { code: 'token-counts', spanId, message: `span ${spanId} (${spanName}): ${problem}${more}` })
  }

  /** A snapshot of the warnings so far, for {@link rewind} when a read is abandoned and redone another way. */
  mark(): ContextMark {
    return {
      counts: new Map([...this.byTrace].map(([id, list]) => [id, list.length])),
      unparsed: new Set(this.unparsedSeen),
      tokens: new Map(this.tokenWarnings),
    }
  }

  /** Drops every warning collected since `mark`. */
  rewind(mark: ContextMark): void {
    for (const [id, list] of this.byTrace) {
      const keep = mark.counts.get(id)
      if (keep === undefined) this.byTrace.delete(id)
      else list.length = keep
    }
    for (const id of this.unparsedSeen) if (!mark.unparsed.has(id)) this.unparsedSeen.delete(id)
    this.tokenWarnings.clear()
    for (const [id, n] of mark.tokens) this.tokenWarnings.set(id, n)
  }

  /** The warnings collected for a trace so far (a fresh array the Trace may append to). */
  warningsFor(traceId: string): TraceWarning[] {
    return [...(this.byTrace.get(traceId) ?? [])]
  }
}
