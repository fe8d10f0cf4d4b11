// Where the judged images wait for the HTML report: content-addressed, so each distinct image is kept
// (and later inlined) once, whatever it came from — a path, a Buffer, a data URL or a URL.
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Overrides the image cache directory (default `<os temp dir>/agent-verdict-images`). */
export const IMAGE_CACHE_ENV = 'AGENT_VERDICT_IMAGE_CACHE'

/**
 * The file holding the bytes of the image with this sha256 digest. The default directory is in the OS
 * temp dir, not in the project: files are named by their content, so one directory serves every
 * project, and nothing is written into `node_modules` (which may be shared or read-only).
 *
 * @example
 * imageCachePath(verdict.image.digest, verdict.image.format) // /tmp/agent-verdict-images/3f…a1.png
 */
export function imageCachePath(digest: string, format: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!/^[0-9a-f]{64}$/.test(digest) || !/^[a-z]{3,4}$/.test(format))
    throw new Error(`agent-verdict: not an image digest and format: ${digest}.${format}`)
  const dir = env[IMAGE_CACHE_ENV] || join(tmpdir(), 'agent-verdict-images')
  return join(dir, `${digest}.${format}`)
}
