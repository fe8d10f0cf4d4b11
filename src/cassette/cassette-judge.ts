import { JudgeOutputError } from '../judges/errors'
import type { Judge, JudgeRequest, JudgeResponse } from '../judges/types'
import { CassetteError, CassetteMissError, displayPath } from './errors'
import type { FileLockOptions } from './lock'
import { parseCassetteMode, replayCauseFromEnv, resolveCassetteSettings, type CassetteMode } from './modes'
import { cassetteKey } from './key'
import { keepUnchanged, MAX_REASON_CHARS, replayedFailure } from './recorded-entry'
import { currentCassetteScope } from './scope'
import { readCassette, settleCassetteWrites, updateCassette, type CassetteEntry, type CassetteVerdict } from './store'
import { scrubDeep, scrubSecrets } from '../config/secrets'
import { batchHookFromEnv, type BatchHook } from '../judges/batch/hook'

/** Options of {@link withCassette}. `mode` and `update` default to the environment's. */
export interface CassetteOptions {
  /** The cassette file, usually `cassettePathFor(testFile)`. */
  file: string
  mode?: CassetteMode
  update?: boolean
  /** Environment to read defaults from (default `process.env`). */
  env?: Record<string, string | undefined>
  /** Clock for `recordedAt` of new or changed verdicts (tests pin it). */
  now?: () => Date
  lock?: FileLockOptions
  /** Batch record: queue misses, or answer them from a finished batch (default from `AGENT_VERDICT_BATCH`). */
  batch?: BatchHook
  /** The named Vitest project the run belongs to: its entries are labelled with it (decision 0043). */
  project?: string
}

/** A judge that replays and records verdicts in a cassette file. */
export interface CassetteJudge extends Judge {
  readonly file: string
  readonly mode: CassetteMode
  readonly update: boolean
  /** Keys asked for through this judge in this run. */
  readonly usedKeys: ReadonlySet<string>
  /** Verdicts replayed and recorded so far (for report totals). */
  readonly stats: { replayed: number; recorded: number }
  /** Waits for every cassette write started by this judge. */
  flush(): Promise<void>
  /** Keys in the file not used in this run, sorted. Meaningful only after the whole test file ran. */
  obsoleteKeys(): Promise<string[]>
  /** Removes the obsolete entries and returns their keys. Call only when the whole test file ran. */
  prune(): Promise<string[]>
}

/**
 * Wraps any judge with a verdict cassette. A hit returns the recorded output (`cached: true`,
 * `attempts: 0`, latency 0; usage and cost as recorded) without calling the judge; a miss calls it and
 * writes the entry at once (a crash loses nothing) — or, in replay mode, throws a
 * {@link CassetteMissError} saying how to record. Recorded outputs are re-validated against the
 * request's schema: one that no longer fits is a miss (an error in replay). Identical requests
 * repeated in a run (self-consistency samples) get one entry each. Inside `runInCassetteScope` an
 * entry is labelled with its test and matcher, and the matcher's verdicts are written into it.
 *
 * @example
 * const judge = withCassette(openaiJudge({ model: 'gpt-4.1' }), { file: cassettePathFor(import.meta.filename) })
 * const reply = await judge.evaluate(request) // replayed from test/__verdicts__/… when recorded
 */
export function withCassette(judge: Judge, options: CassetteOptions): CassetteJudge {
  const settings = resolveCassetteSettings(options.env)
  const mode = options.mode === undefined ? settings.mode : parseCassetteMode(options.mode, 'mode')
  const update = options.update ?? settings.update
  const { file } = options
  const batch = options.batch ?? (mode === 'live' ? undefined : batchHookFromEnv(options.env))
  const now = options.now ?? (() => new Date())
  const canRecord = mode === 'auto' || mode === 'record' || update
  // For the miss message: a judge is configured here, so say why it is not called.
  const replayBecause = options.mode === undefined ? replayCauseFromEnv(options.env) : 'option'
  const usedKeys = new Set<string>()
  const occurrences = new Map<string, number>()
  const recordedNow = new Set<string>()
  const stats = { replayed: 0, recorded: 0 }
  const pending = new Set<Promise<unknown>>()
  let loaded: Promise<Record<string, CassetteEntry>> | undefined

  const entries = () => (loaded ??= readCassette(file).then((c) => c.entries))

  const record = async (
    key: string,
    request: JudgeRequest<unknown>,
    response: JudgeResponse<unknown> | JudgeOutputError,
  ) => {
    const scope = currentCassetteScope()
    const failed = response instanceof JudgeOutputError ? response : undefined
    // Never a credential in a committed file, whichever judge (even a custom one) produced the reply.
    const output = failed
      ? null
      : scrubDeep(JSON.parse(JSON.stringify((response as JudgeResponse<unknown>).output ?? null)))
    const usage = failed ? failed.usage : (response as JudgeResponse<unknown>).usage
    const fresh: CassetteEntry = {
      ...(scope?.test !== undefined ? { test: scope.test } : {}),
      ...(scope?.matcher !== undefined ? { matcher: scope.matcher } : {}),
      ...(request.about?.span !== undefined ? { span: request.about.span } : {}),
      metric: request.metric,
      provider: response.provider,
      model: response.model,
      promptVersion: request.promptVersion,
      ...(failed
        ? { unjudgeable: { error: failed.name, reason: scrubSecrets(failed.message).slice(0, MAX_REASON_CHARS) } }
        : {}),
      output,
      usage: { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 },
      costUsd: failed ? null : (response as JudgeResponse<unknown>).costUsd,
      ...(options.project !== undefined ? { projects: [options.project] } : {}),
      recordedAt: now().toISOString(),
    }
    const write = updateCassette(
      file,
      (c) => {
        c.entries[key] = keepUnchanged(c.entries[key], fresh)
      },
      options.lock,
    )
    pending.add(write)
    try {
      const merged = await write
      loaded = Promise.resolve(merged.entries) // the fresh file, other workers' entries included
      recordedNow.add(key)
      stats.recorded++
    } finally {
      pending.delete(write)
    }
    scope?.recorded.push({
      key,
      ...(request.about?.spanId !== undefined ? { spanId: request.about.spanId } : {}),
      annotate: (labels) => annotate(key, labels),
    })
  }

  // The matcher's reading of a recorded reply, written once it is known; an unchanged one rewrites the same bytes.
  const annotate = async (key: string, labels: { verdicts: CassetteVerdict[]; judged?: string }) => {
    const write = updateCassette(
      file,
      (c) => {
        const entry = c.entries[key]
        if (!entry) return
        if (labels.judged !== undefined) entry.judged = labels.judged
        entry.verdicts = labels.verdicts
      },
      options.lock,
    )
    pending.add(write)
    try {
      loaded = Promise.resolve((await write).entries)
    } finally {
      pending.delete(write)
    }
  }

  const flush = async () => {
    await Promise.allSettled([...pending])
    await settleCassetteWrites(file)
  }

  return {
    id: judge.id,
    provider: judge.provider,
    model: judge.model,
    ...(judge.endpoint ? { endpoint: judge.endpoint } : {}),
    file,
    mode,
    update,
    usedKeys,
    stats,

    async evaluate<T>(request: JudgeRequest<T>, signal?: AbortSignal): Promise<JudgeResponse<T>> {
      if (mode === 'live') return judge.evaluate(request, signal)
      const base = cassetteKey(judge, request)
      const scope = currentCassetteScope()
      // Identical requests are numbered within their test and its attempt, synchronously, before any await (so
      // concurrent samples get distinct entries): which test asks first, or a retry, never changes a test's keys.
      const counter = `${scope?.test ?? ''}\u0000${scope?.attempt ?? ''}\u0000${base}`
      const occurrence = occurrences.get(counter) ?? 0
      occurrences.set(counter, occurrence + 1)
      const key = occurrence === 0 ? base : cassetteKey(judge, request, occurrence)
      usedKeys.add(key)
      const miss = (reason: 'missing' | 'stale', detail?: string) =>
        new CassetteMissError({
          metric: request.metric,
          file,
          key,
          provider: judge.provider,
          model: judge.model,
          reason,
          detail,
          test: scope?.test,
          matcher: scope?.matcher,
          span: request.about?.span,
          judge: judge.id,
          replayBecause,
        })

      const entry = (await entries())[key]
      // A recorded failure replays as that failure; a run that may record asks the judge again (decision 0043).
      if (entry?.unjudgeable && (!canRecord || recordedNow.has(key))) {
        stats.replayed++
        throw replayedFailure(entry, file, judge)
      }
      if (entry && !entry.unjudgeable && (mode !== 'record' || recordedNow.has(key))) {
        const parsed = request.schema.safeParse(entry.output)
        // An entry's provider and model are what a reviewer reads; the key was made from the judge's. Edited,
        // they must not replay as if that judge had said it (entries recorded in this run came from the judge).
        if (!recordedNow.has(key) && (entry.provider !== judge.provider || entry.model !== judge.model))
          throw new CassetteError(
            `cassette ${displayPath(file)}: the entry ${describeEntry(entry, key)} says it was judged by ${entry.provider}:${entry.model}, but this test's judge is ${judge.provider}:${judge.model} (whose key it has) — the entry was edited, so it is not replayed. Re-record it: run the tests locally with \`vitest -u\` (or AGENT_VERDICT_MODE=record) and review the diff`,
            { file },
          )
        if (parsed.success) {
          if (!recordedNow.has(key) && entry.verdicts !== undefined)
            scope?.replayed.push({
              key,
              file,
              ...(request.about?.spanId !== undefined ? { spanId: request.about.spanId } : {}),
              where: describeEntry(entry, key),
              verdicts: entry.verdicts,
            })
          stats.replayed++
          return {
            output: parsed.data,
            usage: { ...entry.usage },
            latencyMs: 0, // nothing was waited for
            provider: entry.provider,
            model: entry.model,
            costUsd: entry.costUsd,
            cached: true,
            attempts: 0,
          }
        }
        if (!canRecord) {
          const issue = parsed.error.issues[0]
          throw miss('stale', `${issue.path.join('.') || 'output'}: ${issue.message}`)
        }
      } else if (!entry && !canRecord) {
        throw miss('missing', olderPromptVersions(await entries(), request))
      }
      // Batch record: a miss is queued (collect) or answered from the finished batch (apply), else live.
      const batched = batch
        ? await batch.answer({ key, file, judge, request, test: scope?.test, matcher: scope?.matcher })
        : undefined
      if (batched) {
        await record(key, request as JudgeRequest<unknown>, batched)
        return batched
      }
      let response: JudgeResponse<T>
      try {
        response = await judge.evaluate(request, signal)
      } catch (err) {
        // No valid verdict (after the judge's own retries): recorded, so CI replays the same unjudgeable outcome.
        // Other failures (network, throttling, auth, timeouts) say nothing about the request and are not kept.
        if (err instanceof JudgeOutputError && !signal?.aborted)
          await record(key, request as JudgeRequest<unknown>, err)
        throw err
      }
      await record(key, request as JudgeRequest<unknown>, response)
      return response
    },

    flush,

    async obsoleteKeys() {
      if (mode === 'live') return []
      const { entries: onDisk } = await readCassette(file)
      return Object.keys(onDisk)
        .filter((k) => !usedKeys.has(k))
        .sort()
    },

    async prune() {
      if (mode === 'live') return []
      await flush()
      const { entries: onDisk } = await readCassette(file)
      if (Object.keys(onDisk).every((k) => usedKeys.has(k))) return [] // nothing to do: leave the file untouched
      const removed: string[] = []
      const merged = await updateCassette(
        file,
        (c) => {
          for (const key of Object.keys(c.entries).sort()) {
            if (!usedKeys.has(key)) {
              removed.push(key)
              delete c.entries[key]
            }
          }
        },
        options.lock,
      )
      loaded = Promise.resolve(merged.entries)
      return removed
    },
  }
}

/**
 * Why a miss may be no accident: the file holds verdicts of the request's metric recorded with another
 * prompt version (the prompt or its reply schema changed since), which are never reused for this one.
 */
function olderPromptVersions(
  entries: Record<string, CassetteEntry>,
  request: JudgeRequest<unknown>,
): string | undefined {
  const versions = new Set<string>()
  for (const e of Object.values(entries))
    if (e.metric === request.metric && e.promptVersion !== request.promptVersion) versions.add(e.promptVersion)
  if (versions.size === 0) return undefined
  return `its ${request.metric} verdicts were recorded with prompt ${[...versions].sort().join(', ')}, not ${request.promptVersion}: the prompt or its reply changed since, so they are not reused`
}

/** An entry as a message names it: its test, matcher, span and metric, and the start of its key. */
function describeEntry(entry: CassetteEntry, key: string): string {
  const name = [entry.test && `test "${entry.test}"`, entry.matcher, entry.span && `span ${entry.span}`, entry.metric]
    .filter(Boolean)
    .join(' › ')
  return `${name} (key ${key.slice(0, 12)}…)`
}
