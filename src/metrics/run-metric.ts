import { scrubSecrets } from '../config/secrets'
import { JudgeOutputError } from '../judges/errors'
import { callJudge } from '../judges/judge-call'
import type { Judge, JudgeResponse } from '../judges/types'
import type { ImagePart, LoadedImage } from '../media/loaded-image'
import type { JudgeInfo, Verdict } from '../verdict/verdict'
import { judgeCalls, tokenUsageOf } from './judge-calls'
import { contentParts, isLoadedImage, normalizeScore, type MetricDefinition, type MetricImage } from './metric'

/** Options of {@link runMetric}. */
export interface RunMetricOptions {
  judge: Judge
  /** Normalized pass threshold in 0..1 (binary: 1; 1–5 scales: 0.75 = 4). Default: the metric's. */
  threshold?: number
  /** Self-consistency: ask the judge this many times; majority (binary) or median (1–5). */
  samples?: number
  signal?: AbortSignal
  /** Called with the loaded image before the judge is asked (matchers keep its bytes for the HTML report). */
  onImage?: (image: LoadedImage) => void | Promise<void>
}

/** The received output kept on a verdict, for reports: long enough to read, short enough to diff. */
export const SUBJECT_MAX_CHARS = 2000

/**
 * Runs one output metric: validates the input, loads and checks the image (before any call), asks
 * the judge (reasoning first, then score), and turns the reply into a Verdict. A judge that gives no
 * valid verdict yields `outcome: 'unjudgeable'` (never a pass); configuration errors and bad images throw.
 *
 * @example
 * const verdict = await runMetric(faithfulnessMetric, { output: answer, image: 'chart.png' }, { judge })
 * if (!verdict.pass) console.log(verdict.reason)
 */
export async function runMetric<I extends { output: string }, O extends { reasoning: string; score: number }>(
  metric: MetricDefinition<I, O>,
  input: I,
  options: RunMetricOptions,
): Promise<Verdict> {
  const parsed = metric.inputSchema.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue.path.length ? ` at ${issue.path.join('.')}` : ''
    throw new TypeError(`${metric.title}: invalid input${where}: ${issue.message}`)
  }
  const threshold = checkThreshold(options.threshold ?? metric.defaultThreshold, metric.title)
  const { judge } = options
  const { image, part } = await resolveImage(metric.imageOf(parsed.data), judge.provider)
  if (image && options.onImage) await options.onImage(image)
  const prompt = metric.prompt(parsed.data, image !== undefined)
  const started = performance.now()
  const result = await callJudge(
    judge,
    {
      metric: metric.name,
      promptVersion: metric.promptVersion,
      system: prompt.system,
      content: contentParts(prompt.text, part),
      schema: metric.schema,
      schemaName: metric.schemaName,
    },
    {
      samples: options.samples,
      scoreOf: (o) => o.score,
      aggregate: metric.scale === 'binary' ? 'majority' : 'median',
      passes: (raw) => normalizeScore(metric.scale, raw) >= threshold,
      signal: options.signal,
    },
  )

  const base = {
    metric: metric.name,
    level: 'output' as const,
    scale: metric.scale,
    threshold,
    // A long output is scrubbed before it is cut: a cut through a key would leave a part no later scrub recognises.
    subject: truncate(
      parsed.data.output.length > SUBJECT_MAX_CHARS ? scrubSecrets(parsed.data.output) : parsed.data.output,
      SUBJECT_MAX_CHARS,
    ),
    ...(image ? { image: { digest: image.digest, format: image.format, source: image.source } } : {}),
  }
  if (result.status === 'unjudgeable') {
    // Still say who failed to judge and what the failed replies cost, so reports count the calls.
    const usage = result.error instanceof JudgeOutputError ? result.error.usage : undefined
    // Split samples: every sample was a call, and each one's tokens were paid for.
    const split = result.responses
    const judgeFailed: JudgeInfo = {
      provider: judge.provider,
      model: judge.model,
      promptVersion: metric.promptVersion,
      tokens: split
        ? tokenUsageOf([
            ...split.map((r) => r.usage),
            ...(result.errors ?? []).map((e) => (e as JudgeOutputError).usage),
          ])
        : tokenUsageOf([usage]),
      latencyMs: Math.round(performance.now() - started),
      cached: split
        ? split.every((r) => r.cached) && (result.errors ?? []).every((e) => e.replayed)
        : result.error.replayed === true,
      calls: split ? judgeCalls(split, result.errors) : judgeCalls([], [result.error]),
    }
    const failed = result.sampleCount ? { samplesFailed: result.sampleCount.failed } : {}
    return {
      ...base,
      raw: null,
      score: null,
      pass: false,
      outcome: 'unjudgeable',
      reason: result.cause,
      ...failed,
      judge: judgeFailed,
    }
  }
  const raw = result.output.score
  const score = normalizeScore(metric.scale, raw)
  const pass = score >= threshold
  const disagreement = result.disagreement && result.samples ? ` (samples disagreed: ${result.samples.join(', ')})` : ''
  const n = result.responses.length + (result.errors?.length ?? 0)
  // Said in the reason too: a verdict resting on 2 of 3 samples should not read like one resting on 3.
  const failedSamples = result.errors?.length
    ? ` (${result.errors.length} of ${n} samples gave no valid verdict: ${result.errors[0].message})`
    : ''
  return {
    ...base,
    raw,
    score,
    pass,
    outcome: pass ? 'pass' : 'fail',
    reason: `${result.output.reasoning.trim()}${disagreement}${failedSamples}`,
    ...(result.samples ? { samples: result.samples.map((s) => normalizeScore(metric.scale, s)) } : {}),
    ...(result.errors?.length ? { samplesFailed: result.errors.length } : {}),
    judge: { ...judgeInfo(result.responses, metric.promptVersion), calls: judgeCalls(result.responses, result.errors) },
  }
}

function checkThreshold(threshold: number, title: string): number {
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new RangeError(
      `${title}: threshold must be a normalized score in 0..1 (got ${String(threshold)}); on a 1–5 scale 4 is 0.75 — or use { min: 4 }`,
    )
  }
  return threshold
}

async function resolveImage(
  input: MetricImage | undefined,
  provider: string,
): Promise<{ image?: LoadedImage; part?: ImagePart }> {
  if (input === undefined) return {}
  // The image code (formats, limits, loading, its schemas) loads with the first image: a run that only judges
  // text never needs it, and loading it would hold up the first judge request (decision 0031).
  const [{ loadImage }, { checkImageLimits }, { toImagePart }] = await Promise.all([
    import('../media/load'),
    import('../media/limits'),
    import('../media/loaded-image'),
  ])
  let image: LoadedImage
  if (isLoadedImage(input)) {
    // A preloaded image may have been loaded for another provider: check this judge's limits too.
    checkImageLimits(input, provider)
    image = input
  } else image = await loadImage(input, { provider })
  return { image, part: toImagePart(image) }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** Who judged and what it cost, summed over the samples (latency: the slowest, they ran concurrently). */
function judgeInfo(responses: JudgeResponse<unknown>[], promptVersion: string): JudgeInfo {
  const first = responses[0]
  const costs = responses.map((r) => r.costUsd)
  return {
    provider: first.provider,
    model: first.model,
    promptVersion,
    tokens: tokenUsageOf(responses.map((r) => r.usage)),
    costUsd: costs.every((c) => c === null) ? null : costs.reduce<number>((n, c) => n + (c ?? 0), 0),
    latencyMs: Math.max(...responses.map((r) => r.latencyMs)),
    cached: responses.every((r) => r.cached),
  }
}
