/** Options of an {@link ImageInputError}: where the image came from and what was found. */
export interface ImageInputErrorOptions {
  /** Short description of the input for messages (a path, `data URL`, a URL without its query). */
  source: string
  /** What the bytes were detected as (`svg`, `pdf`, `empty`, …) when that is the problem. */
  detected?: string
  /** Which limit was exceeded (`maxBytes`, `maxDimension`, `animatedGif`, …) when that is the problem. */
  limit?: string
  cause?: unknown
}

/**
 * An image cannot be given to a judge: unreadable, unsupported format, over a provider limit, or a
 * URL that may not be fetched. Raised before any judge call, so no tokens are spent on it.
 *
 * @example
 * try { await loadImage('diagram.svg') } catch (err) {
 *   if (err instanceof ImageInputError) console.error(err.detected, err.message) // 'svg', 'SVG is not supported…'
 * }
 */
export class ImageInputError extends Error {
  override readonly name = 'ImageInputError'
  readonly source: string
  readonly detected?: string
  readonly limit?: string

  constructor(message: string, options: ImageInputErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.source = options.source
    this.detected = options.detected
    this.limit = options.limit
  }
}
