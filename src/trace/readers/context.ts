import type { TraceWarning } from '../trace'

/** What {@link ReadContext.mark} saves: the warning count per trace and the traces already told about unparsed payloads. */
export interface ContextMark {
  counts: Map<string, number>
  unparsed: Set<string>
}

/**
 * State shared by the readers while one input is read: the source file (for error messages) and the
 * warnings collected per trace id (a file may hold several traces).
 */
export class ReadContext {
  readonly source?: string
  private readonly byTrace = new Map<string, TraceWarning[]>()
  private readonly unparsedSeen = new Set<string>()

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

  /** A snapshot of the warnings so far, for {@link rewind} when a read is abandoned and redone another way. */
  mark(): ContextMark {
    return {
      counts: new Map([...this.byTrace].map(([id, list]) => [id, list.length])),
      unparsed: new Set(this.unparsedSeen),
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
  }

  /** The warnings collected for a trace so far (a fresh array the Trace may append to). */
  warningsFor(traceId: string): TraceWarning[] {
    return [...(this.byTrace.get(traceId) ?? [])]
  }
}
