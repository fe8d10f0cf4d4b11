// Resolves verdict images for the HTML report (only copies the run stored, by content hash) and writes the report.
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { imageCachePath } from '../verdict/image-cache'
import type { Report } from '../verdict/report'
import { renderHtml, type ImageEmbed } from './render-html'
import { writeFileAtomic } from '../files/atomic'

export interface ImageEmbedOptions {
  /** The project root: local image paths are shown relative to it. Default: cwd. Images are never read from it. */
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
 * For every image in the report, keyed by its digest: a data URL of the bytes the run kept under that digest
 * (`imageCachePath`, written by the matchers), only when their sha256 is that digest; otherwise the reason it
 * is not embedded. A path or URL named in the report is never read or fetched: a report is data anyone can
 * edit, and `report html` on a crafted one must not copy a local file into the page (issue 33, class 16). A
 * data URL in the report is embedded when its bytes hash to the digest (it carries the bytes itself).
 *
 * @example
 * const images = await loadImageEmbeds(report)
 */
export async function loadImageEmbeds(
  report: Report,
  options: ImageEmbedOptions = {},
): Promise<Map<string, ImageEmbed>> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const out = new Map<string, ImageEmbed>()
  for (const test of report.tests) {
    for (const v of test.verdicts) {
      const image = v.image
      if (!image || (out.has(image.digest) && 'dataUrl' in out.get(image.digest)!)) continue
      const kept = await embedKept(image.digest, image.format, maxBytes)
      const fromData =
        'dataUrl' in kept || !image.source?.startsWith('data:')
          ? undefined
          : embedDataUrl(image.source, image.digest, maxBytes)
      out.set(image.digest, fromData ?? kept)
    }
  }
  return out
}

const NOT_KEPT =
  'the run kept no copy of this image (the report embeds only images the run stored, checked by content hash; never a path named in the report)'

/** The copy the run kept under the image's digest, if its bytes still hash to it. */
async function embedKept(digest: string, format: string, maxBytes: number): Promise<ImageEmbed> {
  let path: string
  try {
    path = imageCachePath(digest, format)
  } catch {
    return { skipped: 'not an image digest' }
  }
  try {
    const info = await stat(path)
    if (!info.isFile()) return { skipped: NOT_KEPT }
    if (info.size > maxBytes) return { skipped: `${info.size} bytes, over the ${maxBytes}-byte cap` }
    const bytes = await readFile(path)
    if (sha256(bytes) !== digest) return { skipped: 'the stored copy does not match the image digest' }
    const mime = sniffMime(bytes)
    if (!mime) return { skipped: 'not a png/jpeg/gif/webp image' }
    return { dataUrl: `data:${mime};base64,${bytes.toString('base64')}` }
  } catch {
    return { skipped: NOT_KEPT }
  }
}

function embedDataUrl(source: string, digest: string, maxBytes: number): ImageEmbed {
  const match = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/=]+)$/.exec(source)
  if (!match) return { skipped: 'not a base64 png/jpeg/gif/webp data URL' }
  const bytes = Buffer.from(match[2], 'base64')
  if (bytes.length > maxBytes) return { skipped: `${bytes.length} bytes, over the ${maxBytes}-byte cap` }
  if (sha256(bytes) !== digest) return { skipped: 'data URL bytes do not match the image digest' }
  return sniffMime(bytes) === match[1] ? { dataUrl: source } : { skipped: 'data URL bytes do not match its image type' }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
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
