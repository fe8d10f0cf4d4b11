import * as z from 'zod'
import type { ContentPart } from '../judges/types'
import type { ImageInput } from '../media/load'
import type { LoadedImage } from '../media/loaded-image'

/** Scales an output metric can use (a subset of the Verdict scales). */
export const MetricScaleSchema = z.enum(['binary', 'likert5'])
export type MetricScale = z.infer<typeof MetricScaleSchema>

/** An image as a metric accepts it: anything `loadImage` takes, or an already loaded image. */
export type MetricImage = ImageInput | LoadedImage

/** Validates an image argument's type (its bytes are checked later by `loadImage`). */
export const MetricImageSchema = z.custom<MetricImage>(
  (v) => typeof v === 'string' || v instanceof Uint8Array || v instanceof URL || isLoadedImage(v),
  'expected an image: a file path, data URL, https URL, URL, Buffer/Uint8Array or a loadImage() result',
)

/** True for the result of `loadImage` (so metrics do not load an image twice). */
export function isLoadedImage(value: unknown): value is LoadedImage {
  if (!value || typeof value !== 'object') return false
  const v = value as Partial<LoadedImage>
  return v.bytes instanceof Uint8Array && typeof v.digest === 'string' && typeof v.format === 'string'
}

/** What a metric sends: the system prompt and the user text (the image part is added by the runner). */
export interface MetricPrompt {
  system: string
  text: string
}

/**
 * One output metric: a versioned prompt, a reply schema whose first property is `reasoning`, and how
 * to read the judge's raw score. Run it with `runMetric`.
 *
 * @example
 * const verdict = await runMetric(faithfulnessMetric, { output, image: 'chart.png' }, { judge })
 */
export interface MetricDefinition<I extends { output: string }, O extends { reasoning: string; score: number }> {
  /** Verdict metric id, e.g. `faithfulness`. */
  readonly name: string
  /** Human name for messages, e.g. `Faithfulness`. */
  readonly title: string
  readonly promptVersion: string
  readonly scale: MetricScale
  /** Normalized (0..1) pass threshold used when the caller gives none. */
  readonly defaultThreshold: number
  readonly schemaName: string
  readonly schema: z.ZodType<O>
  /** Validates the caller's input before anything is loaded or sent. */
  readonly inputSchema: z.ZodType<I>
  /** The image the judge must see, if any. */
  imageOf(input: I): MetricImage | undefined
  prompt(input: I, hasImage: boolean): MetricPrompt
}

/**
 * A raw judge score on the metric's scale → 0..1 (binary 0/1 stays; 1–5 becomes (raw − 1) / 4).
 *
 * @example
 * normalizeScore('likert5', 4) // 0.75
 */
export function normalizeScore(scale: MetricScale, raw: number): number {
  return scale === 'binary' ? raw : (raw - 1) / 4
}

/**
 * A normalized threshold shown on the metric's own scale, for messages (`0.75` → `4/5`).
 *
 * @example
 * formatOnScale('likert5', 0.75) // '4/5'
 */
export function formatOnScale(scale: MetricScale, normalized: number): string {
  const raw = scale === 'binary' ? normalized : normalized * 4 + 1
  const text = Number.isInteger(raw) ? String(raw) : raw.toFixed(2).replace(/0+$/, '')
  return scale === 'binary' ? `${text}/1` : `${text}/5`
}

/** Content parts of a request: the image first (so the text can refer to it "above"), then the text. */
export function contentParts(text: string, image: ContentPart | undefined): ContentPart[] {
  return image ? [image, { type: 'text', text }] : [{ type: 'text', text }]
}
