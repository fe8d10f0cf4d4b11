// Where the judged images wait for the HTML report: content-addressed, so each distinct image is kept
// (and later inlined) once, whatever it came from — a path, a Buffer, a data URL or a URL.
import { join } from 'node:path'

/** Overrides the image cache directory (default `node_modules/.cache/agent-verdict/images` under the project root). */
export const IMAGE_CACHE_ENV = 'AGENT_VERDICT_IMAGE_CACHE'

/**
 * The file holding the bytes of the image with this sha256 digest.
 *
 * @example
 * imageCachePath(verdict.image.digest, verdict.image.format) // …/node_modules/.cache/agent-verdict/images/3f…a1.png
 */
export function imageCachePath(digest: string, format: string, root: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  if (!/^[0-9a-f]{64}$/.test(digest) || !/^[a-z]{3,4}$/.test(format)) throw new Error(`agent-verdict: not an image digest and format: ${digest}.${format}`)
  const dir = env[IMAGE_CACHE_ENV] || join(root, 'node_modules', '.cache', 'agent-verdict', 'images')
  return join(dir, `${digest}.${format}`)
}
