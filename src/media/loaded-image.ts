import * as z from 'zod'
import { ImageFormatSchema, type ImageFormat } from './sniff'

/**
 * An image ready for a judge: bytes plus what was learnt from them. `format`, `width` and `height`
 * come from the bytes themselves; `digest` (sha256 hex) keys cassettes; `source` names the input in
 * messages without its query string or credentials.
 *
 * @example
 * LoadedImageSchema.parse(await loadImage('chart.png')).width // 720
 */
export const LoadedImageSchema = z.object({
  bytes: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'expected bytes (Uint8Array)'),
  format: ImageFormatSchema,
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  byteLength: z.number().int().positive(),
  /** A multi-frame GIF or an animated WEBP. */
  animated: z.boolean(),
  source: z.string(),
})
export type LoadedImage = z.infer<typeof LoadedImageSchema>

/** An image as a judge request carries it (a `ContentPart` of `judges/types`): bytes, never a description. */
export interface ImagePart {
  type: 'image'
  bytes: Uint8Array
  format: ImageFormat
  /** sha256 hex of the bytes, for cassette keys */
  digest: string
}

/**
 * The judge-request content part for a loaded image (bytes travel, never a description).
 *
 * @example
 * const part = toImagePart(await loadImage('test/fixtures/images/chart.png'))
 * // { type: 'image', bytes, format: 'png', digest: '3f…' }
 */
export function toImagePart(image: LoadedImage): ImagePart {
  return { type: 'image', bytes: image.bytes, format: image.format, digest: image.digest }
}
