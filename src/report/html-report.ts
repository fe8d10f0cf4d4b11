// Resolves verdict images for the HTML report (local files only) and writes the report.
import { readFile, stat } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { imageCachePath } from '../verdict/image-cache'
import type { Report } from '../verdict/report'
import { renderHtml, type ImageEmbed } from './render-html'
import { writeFileAtomic } from './write-atomic'

export interface ImageEmbedOptions {
  /** Directory relative image paths are resolved against (the test root). Default: cwd. */
  baseDir?: string
  /** Largest image embedded, in bytes; bigger ones are shown by digest. Default 2 MiB. */
  maxBytes?: number
}

const DEFAULT_MAX_BYTES = 2 * 1024 * 1024

/** Mime type from magic bytes: the file name and the recorded format are not trusted. */
function sniffMime(bytes: Uint8Array): string | undefined {
  const hex = Buffer.from(bytes.subarray(0, 12)).toString('hex')
  if (hex.startsWith('89504e470d0a1a0a')) return 'image/png'
  if (hex.startsWith('ffd8ff')) return 'image/jpeg'
  if (hex.startsWith('474946383761') || hex.startsWith('474946383961')) return 'image/gif'
  if (hex.startsWith('52494646') && hex.slice(16, 24) === '57454250') return 'image/webp'
  return undefined
}

/**
 * For every image in the report, keyed by its digest: a data URL of the bytes the matcher kept under
 * that digest (`imageCachePath`: Buffers, data URLs and URLs included), else of `image.source` when it
 * is a readable local image file (or a data URL) within `maxBytes`, otherwise the reason it is not
 * embedded. Each source is also a key, for callers that look images up by it. Never fetches http(s)
 * URLs: the report must not make or cause network requests.
 *
 * @example
 * const images = await loadImageEmbeds(report, { baseDir: process.cwd() })
 */
export async function loadImageEmbeds(
  report: Report,
  options: ImageEmbedOptions = {},
): Promise<Map<string, ImageEmbed>> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const baseDir = options.baseDir ?? process.cwd()
  const out = new Map<string, ImageEmbed>()
  for (const test of report.tests) {
    for (const v of test.verdicts) {
      const image = v.image
      if (!image) continue
      const fromSource =
        image.source === undefined
          ? undefined
          : (out.get(image.source) ?? (await embedOne(image.source, baseDir, maxBytes)))
      if (image.source !== undefined && fromSource) out.set(image.source, fromSource)
      if (out.has(image.digest) && 'dataUrl' in out.get(image.digest)!) continue
      const kept = await embedKept(image.digest, image.format, baseDir, maxBytes)
      out.set(
        image.digest,
        kept && 'dataUrl' in kept
          ? kept
          : (fromSource ?? kept ?? { skipped: 'no copy of the image was kept and it has no readable source' }),
      )
    }
  }
  return out
}

/** The copy a matcher kept under the image's digest, if any. */
async function embedKept(
  digest: string,
  format: string,
  baseDir: string,
  maxBytes: number,
): Promise<ImageEmbed | undefined> {
  let path: string
  try {
    path = imageCachePath(digest, format)
  } catch {
    return undefined
  }
  const embed = await embedOne(path, baseDir, maxBytes)
  return 'dataUrl' in embed ? embed : undefined
}

async function embedOne(source: string, baseDir: string, maxBytes: number): Promise<ImageEmbed> {
  if (source.startsWith('data:')) {
    const match = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/=]+)$/.exec(source)
    if (!match) return { skipped: 'not a base64 png/jpeg/gif/webp data URL' }
    const bytes = Buffer.from(match[2], 'base64')
    if (bytes.length > maxBytes) return { skipped: `${bytes.length} bytes, over the ${maxBytes}-byte cap` }
    return sniffMime(bytes) === match[1]
      ? { dataUrl: source }
      : { skipped: 'data URL bytes do not match its image type' }
  }
  let path: string
  if (/^file:/i.test(source)) path = fileURLToPath(source)
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return { skipped: 'remote URL (the report never fetches)' }
  else path = isAbsolute(source) ? source : resolve(baseDir, source)
  try {
    const info = await stat(path)
    if (!info.isFile()) return { skipped: 'not a file' }
    if (info.size > maxBytes) return { skipped: `${info.size} bytes, over the ${maxBytes}-byte cap` }
    const bytes = await readFile(path)
    const mime = sniffMime(bytes)
    if (!mime) return { skipped: 'not a png/jpeg/gif/webp file' }
    return { dataUrl: `data:${mime};base64,${bytes.toString('base64')}` }
  } catch {
    return { skipped: 'file not readable' }
  }
}

/**
 * Renders the report to one self-contained HTML file (images embedded) and writes it atomically.
 * Returns the absolute path.
 *
 * @example
 * await writeHtmlReport('agent-verdict-report.html', report, { baseDir: root })
 */
export async function writeHtmlReport(path: string, report: Report, options: ImageEmbedOptions = {}): Promise<string> {
  const images = await loadImageEmbeds(report, options)
  return writeFileAtomic(path, renderHtml(report, { images, baseDir: options.baseDir ?? process.cwd() }))
}
