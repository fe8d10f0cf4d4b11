import { mkdir, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Judge } from '../src/judges/types'
import type { LoadedImage } from '../src/media/loaded-image'
import type { MetricDefinition } from '../src/metrics/metric'
import { writeAtomic } from '../src/files/atomic'
import { imageCachePath } from '../src/verdict/image-cache'
import { runMetric } from '../src/metrics/run-metric'
import { isTrials } from '../src/trials/run-trials'
import type { TrialRuleOption } from '../src/trials/summarize'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { usageMessage, verdictMessage } from './messages'
import { parseReceived, type NormalizedReceived } from './received'
import { attachVerdicts, verdictAssertion } from '../runner/attach-verdicts'
import { judgeFor } from '../runner/test-judge'
import { track } from '../runner/unawaited-guard'
import { runTrialsMatcher } from './run-trials-matcher'

/** Options every judge matcher takes per call. */
export interface JudgeCallOptions {
  /** Judge for this call (default: `AGENT_VERDICT_JUDGE`); replayed/recorded through the test file's cassette. */
  judge?: Judge
  /** Normalized pass threshold in 0..1 (binary metrics: 1; 1–5 scales: 0.75 = a 4). */
  threshold?: number
  /** Self-consistency: ask the judge n times; majority (binary) or median (1–5). */
  samples?: number
  /** When `received` comes from `runTrials`: the rule deciding the assertion over the judged trials. */
  trials?: TrialRuleOption
}

/** One output matcher call: which metric, how the matcher's arguments become its input. */
export interface OutputMatcherSpec<I extends { output: string }, O extends { reasoning: string; score: number }> {
  name: string
  /** The arguments as shown in the hint, e.g. `image`. */
  args?: string
  metric: MetricDefinition<I, O>
  options: JudgeCallOptions | undefined
  /** Normalized threshold to use when `options.threshold` is absent (e.g. from `min`); may throw a usage error. */
  threshold?: () => number | undefined
  /** The metric input from the received value and the matcher's arguments. */
  input(received: NormalizedReceived): I
}

/**
 * The body shared by every output matcher: validate `received`, judge through the file's cassette,
 * attach the verdict to the test, and answer with a lazily built message. An unjudgeable verdict
 * fails under `.not` too (it is never a pass, so `.not` cannot turn it into one).
 *
 * @example
 * return runOutputMatcher(this, received, { name: 'toBeCorrect', metric: correctnessMetric, options, input: (r) => ({ ...r }) })
 */
export function runOutputMatcher<I extends { output: string }, O extends { reasoning: string; score: number }>(
  ctx: MatcherContext,
  received: unknown,
  spec: OutputMatcherSpec<I, O>,
): Promise<MatcherResult> {
  const run = async (): Promise<MatcherResult> => {
    const options = spec.options ?? {}
    if (isTrials(received)) {
      const threshold = options.threshold ?? spec.threshold?.()
      return runTrialsMatcher(ctx, received, {
        ...spec,
        judge: options.judge,
        threshold,
        samples: options.samples,
        trials: options.trials,
      })
    }
    if (options.trials !== undefined)
      throw new TypeError(
        usageMessage(
          spec.name,
          ctx.isNot,
          spec.args ?? '',
          'the trials option needs received values from runTrials(k, agent): `await expect(await runTrials(5, agent)).toBeCorrect({ trials: "pass^k" })`',
        ),
      )
    const parsed = parseReceived(received)
    if (!parsed.ok) throw new TypeError(usageMessage(spec.name, ctx.isNot, spec.args ?? '', parsed.error, ctx.utils))
    const verdict = await runMetric(spec.metric, spec.input(parsed.value), {
      judge: judgeFor(ctx, options.judge),
      threshold: options.threshold ?? spec.threshold?.(),
      samples: options.samples,
      onImage: keepForReport,
    })
    const isNot = ctx.isNot === true
    const message = () =>
      verdictMessage({ name: spec.name, args: spec.args, title: spec.metric.title, isNot, verdict, utils: ctx.utils })
    const { pass, passed } = verdictAssertion(verdict, isNot)
    attachVerdicts(ctx, [verdict], undefined, { matcher: spec.name, passed })
    return { pass, message, meta: { verdict } }
  }
  return track(ctx, spec.name, run)
}

/**
 * Keeps the judged image's bytes under its digest for the HTML report, which inlines each distinct image
 * once — Buffers and URLs included, which the report could not read back otherwise. Best effort: a
 * report without the picture must never fail the assertion.
 */
async function keepForReport(image: LoadedImage): Promise<void> {
  try {
    const path = imageCachePath(image.digest, image.format)
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      return
    // Private to the user: judged images may be confidential, and the default directory is in the temp dir.
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    // Several workers may keep the same image at once: each writes aside and renames into place.
    await writeAtomic(path, image.bytes, { mode: 0o600 })
  } catch {
    // The report then shows the image by its digest only.
  }
}
