import * as z from 'zod'

/**
 * Image formats judge models accept (OpenAI and Bedrock Converse alike).
 *
 * @example
 * ImageFormatSchema.parse('webp') // 'webp'
 */
export const ImageFormatSchema = z.enum(['png', 'jpeg', 'gif', 'webp'])
/** The one image-format type: judge requests (`ContentPart`) and limits use it too. */
export type ImageFormat = z.infer<typeof ImageFormatSchema>

/**
 * What a byte sequence was sniffed as: a supported format, or what we reject (named in the error).
 *
 * @example
 * DetectedKindSchema.options.includes('svg') // true
 */
export const DetectedKindSchema = z.enum([
  ...ImageFormatSchema.options,
  'svg',
  'pdf',
  'bmp',
  'tiff',
  'heic',
  'avif',
  'ico',
  'html',
  'video',
  'empty',
  'unknown',
])
export type DetectedKind = z.infer<typeof DetectedKindSchema>

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1'])
const AVIF_BRANDS = new Set(['avif', 'avis'])
// Text sniffing looks at the head only: an SVG's root element comes after at most a prolog and comments.
const TEXT_HEAD_BYTES = 4096

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false
  return prefix.every((b, i) => bytes[at + i] === b)
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, Math.min(end, bytes.length)))
}

function sniffIsoBmff(bytes: Uint8Array): DetectedKind | null {
  if (bytes.length < 12 || ascii(bytes, 4, 8) !== 'ftyp') return null
  const boxSize = Math.min(((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0, bytes.length)
  const brands = [ascii(bytes, 8, 12)]
  for (let at = 16; at + 4 <= boxSize; at += 4) brands.push(ascii(bytes, at, at + 4))
  // AVIF files often list mif1 too, so an avif brand anywhere wins over the generic HEIF ones.
  if (brands.some((b) => AVIF_BRANDS.has(b))) return 'avif'
  if (brands.some((b) => HEIC_BRANDS.has(b))) return 'heic'
  return 'video'
}

function sniffText(bytes: Uint8Array): DetectedKind | null {
  const head = new TextDecoder('utf-8', { fatal: false })
    .decode(bytes.subarray(0, TEXT_HEAD_BYTES))
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase()
  if (head.startsWith('<svg') || head.startsWith('<!doctype svg')) return 'svg'
  if (head.startsWith('<?xml') || head.startsWith('<!--')) return head.includes('<svg') ? 'svg' : null
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html'
  return null
}

/**
 * Detects an image format from its magic bytes, never from a file name or MIME type, which are
 * often wrong (a `.png` holding JPEG bytes is `jpeg`).
 *
 * @example
 * sniffImage(await readFile('chart.png')) // 'png'
 * sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')) // 'svg'
 */
export function sniffImage(bytes: Uint8Array): DetectedKind {
  if (bytes.length === 0) return 'empty'
  if (startsWith(bytes, PNG_SIGNATURE)) return 'png'
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg'
  const head6 = ascii(bytes, 0, 6)
  if (head6 === 'GIF87a' || head6 === 'GIF89a') return 'gif'
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp'
  if (ascii(bytes, 0, 5) === '%PDF-') return 'pdf'
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff'
  // BMP's "BM" is only two bytes, so also require a known DIB header size to avoid false hits.
  if (ascii(bytes, 0, 2) === 'BM' && bytes.length >= 18 && [12, 40, 52, 56, 64, 108, 124].includes(bytes[14]))
    return 'bmp'
  // ICO (type 1) and CUR (type 2): reserved 0, type, then a non-zero image count.
  if (
    startsWith(bytes, [0, 0]) &&
    (bytes[2] === 1 || bytes[2] === 2) &&
    bytes[3] === 0 &&
    bytes.length >= 6 &&
    (bytes[4] | bytes[5]) !== 0
  )
    return 'ico'
  return sniffIsoBmff(bytes) ?? sniffText(bytes) ?? 'unknown'
}

/** True when judge models accept this kind of bytes. */
export function isSupportedFormat(kind: DetectedKind): kind is ImageFormat {
  return ImageFormatSchema.safeParse(kind).success
}

const REJECTED: Record<Exclude<DetectedKind, ImageFormat>, string> = {
  svg: 'SVG is not supported by judge models: render it to PNG first',
  pdf: 'PDF is not an image judge models accept: render the page to PNG first',
  bmp: 'BMP is not supported by judge models: convert it to PNG',
  tiff: 'TIFF is not supported by judge models: convert it to PNG or JPEG',
  heic: 'HEIC/HEIF is not supported by judge models: convert it to JPEG',
  avif: 'AVIF is not supported by judge models: convert it to PNG or JPEG',
  ico: 'ICO is not supported by judge models: convert it to PNG',
  html: 'got an HTML page, not an image: check the path or URL (an error or login page?)',
  video: 'got a video/ISO-media file, not an image: extract a frame as PNG or JPEG',
  empty: 'the image is empty (0 bytes): check that it was written completely',
  unknown: 'unrecognised image bytes: pass PNG, JPEG, GIF or WEBP',
}

/** Why a detected kind is rejected and what to do, for error messages. */
export function rejectionAdvice(kind: DetectedKind, bytes?: Uint8Array): string {
  if (isSupportedFormat(kind)) return ''
  const advice = REJECTED[kind]
  if (kind !== 'unknown' || !bytes) return advice
  const hex = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ')
  return `${advice} (first bytes: ${hex})`
}
