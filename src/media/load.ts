import { createHash } from 'node:crypto'
import { constants, type Stats } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readDimensions, isAnimated } from './dimensions'
import { ImageInputError } from './errors'
import { DEFAULT_FETCH_MAX_BYTES, fetchImageBytes, describeUrl, type FetchImageOptions } from './fetch'
import { checkImageLimits } from './limits'
import type { LoadedImage } from './loaded-image'
import { isSupportedFormat, rejectionAdvice, sniffImage } from './sniff'

/** An image as users pass it: a file path, a `data:` URL, an https URL (string or URL), or bytes. */
export type ImageInput = string | Buffer | Uint8Array | URL

/** Options of {@link loadImage}. */
export interface LoadImageOptions extends FetchImageOptions {
  /** Check this provider's per-image limits (`openai`, `bedrock`, `openai-compatible`) now. */
  provider?: string
  /** Refuse images larger than this, whatever the source (URLs default to 20 MB). */
  maxBytes?: number
}

interface RawImage {
  bytes: Uint8Array
  source: string
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i

function parseDataUrl(text: string): RawImage {
  const comma = text.indexOf(',')
  const meta = comma < 0 ? '' : text.slice(5, comma)
  const source = `data URL (${meta.replace(/;base64$/i, '') || 'no type'})`
  if (comma < 0) {
    throw new ImageInputError('malformed data URL: expected data:image/png;base64,<data>', { source: 'data URL' })
  }
  const payload = text.slice(comma + 1)
  if (!/;base64$/i.test(meta)) return { bytes: new TextEncoder().encode(decodeURIComponent(payload)), source }
  const clean = payload.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) {
    throw new ImageInputError(
      `${source}: the base64 payload has invalid characters — check how the data URL was built`,
      { source },
    )
  }
  return { bytes: new Uint8Array(Buffer.from(clean, 'base64')), source }
}

// O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused right after); regular files ignore it.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)
const READ_CHUNK = 64 * 1024

/** What a path that is not a regular file is, for messages; undefined for a regular file. */
function notRegular(info: Stats): string | undefined {
  if (info.isFile()) return undefined
  if (info.isDirectory()) return 'a directory'
  if (info.isFIFO()) return 'a FIFO (named pipe)'
  if (info.isCharacterDevice()) return 'a character device'
  if (info.isBlockDevice()) return 'a block device'
  if (info.isSocket()) return 'a socket'
  return 'not a regular file'
}

/** At most `maxBytes` bytes of an open file; more is an error (the file may have grown since its stat). */
async function readCapped(
  handle: FileHandle,
  source: string,
  maxBytes: number,
  explicit: boolean,
): Promise<Uint8Array> {
  const chunks: Buffer[] = []
  let total = 0
  for (;;) {
    const chunk = Buffer.allocUnsafe(READ_CHUNK)
    const { bytesRead } = await handle.read(chunk, 0, READ_CHUNK, null)
    if (bytesRead === 0) break
    total += bytesRead
    if (total > maxBytes) throw overCap(source, `more than ${maxBytes} bytes`, maxBytes, explicit)
    chunks.push(bytesRead === READ_CHUNK ? chunk : chunk.subarray(0, bytesRead))
  }
  const buf = Buffer.concat(chunks, total)
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
}

function overCap(source: string, size: string, maxBytes: number, explicit: boolean): ImageInputError {
  const message = explicit
    ? `${source}: file is ${size}, over maxBytes ${maxBytes} — pass a smaller image or raise maxBytes`
    : `${source}: file is ${size}, over the ${maxBytes}-byte default cap (no judge provider accepts more per image) — downscale the image, or raise maxBytes`
  return new ImageInputError(message, { source, limit: 'maxBytes' })
}

async function readPath(path: string, maxBytes: number | undefined): Promise<RawImage> {
  const source = path
  const cap = maxBytes ?? DEFAULT_FETCH_MAX_BYTES
  let handle: FileHandle | undefined
  try {
    handle = await open(path, OPEN_FLAGS)
    // Checked on the open file, so the path cannot be swapped for a pipe or device between check and read.
    const info = await handle.stat()
    const what = notRegular(info)
    if (what === 'a directory')
      throw new ImageInputError(`${source}: is a directory, not an image file — pass the path of an image file`, {
        source,
      })
    if (what !== undefined) {
      throw new ImageInputError(
        `${source}: is ${what}, not a regular file, so it is not read (it could block or never end) — save the image to a file, or read it yourself and pass the bytes as a Buffer`,
        { source },
      )
    }
    // Check the size before reading so a huge file is refused without loading it.
    if (info.size > cap) throw overCap(source, `${info.size} bytes`, cap, maxBytes !== undefined)
    return { bytes: await readCapped(handle, source, cap, maxBytes !== undefined), source }
  } catch (err) {
    if (err instanceof ImageInputError) throw err
    const code = (err as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? `image file not found (looked at ${resolve(path)})`
        : `could not read the image file (${code ?? String(err)})`
    throw new ImageInputError(
      `${source}: ${why} — relative paths resolve from the current directory, ${process.cwd()}`,
      { source, cause: err },
    )
  } finally {
    await handle?.close().catch(() => {})
  }
}

async function readInput(input: ImageInput, options: LoadImageOptions): Promise<RawImage> {
  if (input instanceof URL) {
    if (input.protocol === 'data:') return parseDataUrl(input.href)
    if (input.protocol === 'file:') return readPath(fileURLToPath(input), options.maxBytes)
    return { bytes: await fetchImageBytes(input, options), source: describeUrl(input) }
  }
  if (typeof input === 'string') {
    if (/^data:/i.test(input)) return parseDataUrl(input)
    if (SCHEME.test(input)) return readInput(new URL(input), options)
    return readPath(input, options.maxBytes)
  }
  if (input instanceof Uint8Array) {
    // Copy: the caller may reuse its buffer, which would silently change the image behind its digest.
    const kind = Buffer.isBuffer(input) ? 'Buffer' : 'Uint8Array'
    return { bytes: new Uint8Array(input), source: `${kind} (${input.byteLength} bytes)` }
  }
  throw new ImageInputError(
    `unsupported image input (${typeof input}) — pass a file path, data URL, https URL, URL, Buffer or Uint8Array`,
    { source: typeof input },
  )
}

/**
 * Loads an image from a path, data URL, https URL or bytes; detects the format from the bytes,
 * reads the size from the header, computes the sha256 digest and, when `provider` is given, checks
 * that provider's limits — all before any judge call.
 *
 * @example
 * const chart = await loadImage('test/fixtures/images/revenue-by-region.png', { provider: 'bedrock' })
 * chart.format // 'png'; chart.width // 720
 */
export async function loadImage(input: ImageInput, options: LoadImageOptions = {}): Promise<LoadedImage> {
  const { bytes, source } = await readInput(input, options)
  if (options.maxBytes !== undefined && bytes.byteLength > options.maxBytes) {
    throw new ImageInputError(
      `${source}: image is ${bytes.byteLength} bytes, over maxBytes ${options.maxBytes} — pass a smaller image or raise maxBytes`,
      { source, limit: 'maxBytes' },
    )
  }
  const kind = sniffImage(bytes)
  if (!isSupportedFormat(kind)) {
    throw new ImageInputError(`${source}: ${rejectionAdvice(kind, bytes)}`, { source, detected: kind })
  }
  const dims = readDimensions(bytes, kind)
  if (!dims) {
    throw new ImageInputError(
      `${source}: ${kind.toUpperCase()} header is truncated or corrupt (no image size found) — re-export the image`,
      { source, detected: kind },
    )
  }
  const image: LoadedImage = {
    bytes,
    format: kind,
    digest: createHash('sha256').update(bytes).digest('hex'),
    width: dims.width,
    height: dims.height,
    byteLength: bytes.byteLength,
    animated: isAnimated(bytes, kind),
    source,
  }
  if (options.provider) checkImageLimits(image, options.provider)
  return image
}
