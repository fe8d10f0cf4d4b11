import * as z from 'zod'
import { ImageInputError } from './errors'
import type { LoadedImage } from './loaded-image'
import { ImageFormatSchema } from './sniff'

const MB = 1024 * 1024

/**
 * What one provider accepts per image. Checked before any call so an oversized image costs nothing.
 *
 * @example
 * const strict = ImageLimitsSchema.parse({ label: 'My server', maxBytes: 5e6, formats: ['png'], animatedGif: false })
 */
export const ImageLimitsSchema = z.object({
  /** Provider name for messages, e.g. `Bedrock Converse`. */
  label: z.string(),
  maxBytes: z.number().int().positive(),
  maxWidth: z.number().int().positive().optional(),
  maxHeight: z.number().int().positive().optional(),
  formats: z.array(ImageFormatSchema),
  animatedGif: z.boolean(),
})
export type ImageLimits = z.infer<typeof ImageLimitsSchema>

/**
 * Per-image limits by provider name (`Judge.provider`). Unknown providers get the
 * `openai-compatible` limits, which are OpenAI's.
 *
 * @example
 * IMAGE_LIMITS.bedrock.maxWidth // 8000
 */
export const IMAGE_LIMITS = {
  // Bedrock Converse documents 3.75 MB and 8000×8000 px per image.
  bedrock: {
    label: 'Bedrock Converse',
    maxBytes: 3.75 * MB,
    maxWidth: 8000,
    maxHeight: 8000,
    formats: ['png', 'jpeg', 'gif', 'webp'],
    animatedGif: true,
  },
  // OpenAI vision: up to 20 MB per image; GIFs must not be animated.
  openai: { label: 'OpenAI', maxBytes: 20 * MB, formats: ['png', 'jpeg', 'gif', 'webp'], animatedGif: false },
  // Compatible servers (vLLM, Ollama, Azure…) are held to OpenAI's limits unless told otherwise.
  'openai-compatible': {
    label: 'OpenAI-compatible',
    maxBytes: 20 * MB,
    formats: ['png', 'jpeg', 'gif', 'webp'],
    animatedGif: false,
  },
} as const satisfies Record<string, ImageLimits>

/**
 * The limits for a provider name (`openai`, `bedrock`, `openai-compatible`; anything else is
 * treated as OpenAI-compatible).
 *
 * @example
 * imageLimitsFor('bedrock').maxBytes // 3932160
 */
export function imageLimitsFor(provider: string): ImageLimits {
  return (IMAGE_LIMITS as Record<string, ImageLimits>)[provider] ?? IMAGE_LIMITS['openai-compatible']
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`

/**
 * Throws an {@link ImageInputError} naming the limit, the actual value and what to do when an image
 * exceeds what the provider accepts.
 *
 * @example
 * checkImageLimits(await loadImage('scan.png'), 'bedrock') // throws when > 3.75 MB or > 8000 px
 */
export function checkImageLimits(image: LoadedImage, provider: string | ImageLimits): void {
  const limits = typeof provider === 'string' ? imageLimitsFor(provider) : provider
  const fail = (limit: string, message: string): never => {
    throw new ImageInputError(`${image.source}: ${message}`, { source: image.source, limit })
  }
  if (!limits.formats.includes(image.format)) {
    fail(
      'format',
      `${image.format.toUpperCase()} is not accepted by ${limits.label} (accepts ${limits.formats.join(', ')}) — convert it to PNG or JPEG`,
    )
  }
  if (image.byteLength > limits.maxBytes) {
    fail(
      'maxBytes',
      `image is ${mb(image.byteLength)}, over ${limits.label}'s limit of ${mb(limits.maxBytes)} per image — downscale it or convert it to JPEG`,
    )
  }
  const { maxWidth, maxHeight } = limits
  if ((maxWidth && image.width > maxWidth) || (maxHeight && image.height > maxHeight)) {
    fail(
      'maxDimensions',
      `image is ${image.width}×${image.height} px, over ${limits.label}'s limit of ${maxWidth ?? '∞'}×${maxHeight ?? '∞'} px — downscale it to ≤ ${Math.min(maxWidth ?? Infinity, maxHeight ?? Infinity)} px on each side`,
    )
  }
  if (image.format === 'gif' && image.animated && !limits.animatedGif) {
    fail('animatedGif', `animated GIFs are not accepted by ${limits.label} — pass a single frame as PNG`)
  }
}
