import type { ImageFormat } from './sniff'

/** Pixel size read from an image header. */
export interface ImageDimensions {
  width: number
  height: number
}

const u16be = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1]
const u16le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8)
const u24le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)
const u32be = (b: Uint8Array, i: number) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0
const u32le = (b: Uint8Array, i: number) => (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0
const tag = (b: Uint8Array, i: number) => String.fromCharCode(...b.subarray(i, i + 4))

function pngDimensions(b: Uint8Array): ImageDimensions | null {
  // The IHDR chunk must come first: length(4) type(4) at 8, then width and height.
  if (b.length < 24 || tag(b, 12) !== 'IHDR') return null
  return { width: u32be(b, 16), height: u32be(b, 20) }
}

// SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc

function jpegDimensions(b: Uint8Array): ImageDimensions | null {
  let i = 2
  while (i + 3 < b.length) {
    if (b[i] !== 0xff) return null
    let marker = b[i + 1]
    while (marker === 0xff && i + 2 < b.length) marker = b[++i + 1] // fill bytes before a marker
    // Standalone markers (TEM, RSTn, SOI) have no length field.
    if (marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2
      continue
    }
    if (marker === 0xd9 || marker === 0xda) return null // end of image / scan data before any frame header
    if (isSof(marker)) {
      if (i + 8 >= b.length) return null
      return { width: u16be(b, i + 7), height: u16be(b, i + 5) }
    }
    i += 2 + u16be(b, i + 2)
  }
  return null
}

function gifDimensions(b: Uint8Array): ImageDimensions | null {
  return b.length < 10 ? null : { width: u16le(b, 6), height: u16le(b, 8) }
}

function webpDimensions(b: Uint8Array): ImageDimensions | null {
  if (b.length < 30) return null
  switch (tag(b, 12)) {
    case 'VP8 ': // lossy: 3-byte frame tag, start code 9d 01 2a, then 14-bit sizes
      if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null
      return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff }
    case 'VP8L': {
      // lossless: signature 0x2f, then width-1 and height-1 as 14-bit fields
      if (b[20] !== 0x2f) return null
      const bits = u32le(b, 21)
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
    }
    case 'VP8X': // extended: 24-bit canvas width-1 and height-1
      return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 }
    default:
      return null
  }
}

/**
 * Reads width and height from the image header (PNG IHDR, JPEG SOFn, GIF logical screen, WEBP
 * VP8/VP8L/VP8X) without decoding pixels. `null` when the header is truncated or corrupt.
 *
 * @example
 * readDimensions(await readFile('chart.png'), 'png') // { width: 720, height: 480 }
 */
export function readDimensions(bytes: Uint8Array, format: ImageFormat): ImageDimensions | null {
  const dims = { png: pngDimensions, jpeg: jpegDimensions, gif: gifDimensions, webp: webpDimensions }[format](bytes)
  return dims && dims.width > 0 && dims.height > 0 ? dims : null
}

function skipSubBlocks(b: Uint8Array, i: number): number {
  while (i < b.length && b[i] !== 0) i += b[i] + 1
  return i + 1
}

/**
 * True when a GIF holds more than one frame (OpenAI accepts only non-animated GIFs) or a WEBP has
 * its animation flag set. Walks the GIF block structure; stops at the second frame.
 *
 * @example
 * isAnimated(await readFile('spinner.gif'), 'gif') // true
 */
export function isAnimated(bytes: Uint8Array, format: ImageFormat): boolean {
  if (format === 'webp') return bytes.length > 20 && tag(bytes, 12) === 'VP8X' && (bytes[20] & 0x02) !== 0
  if (format !== 'gif' || bytes.length < 13) return false
  let i = 13
  if (bytes[10] & 0x80) i += 3 * 2 ** ((bytes[10] & 0x07) + 1) // global colour table
  let frames = 0
  while (i < bytes.length) {
    const block = bytes[i]
    if (block === 0x3b) break // trailer
    if (block === 0x21) {
      i = skipSubBlocks(bytes, i + 2)
      continue
    } // extension: introducer, label, sub-blocks
    if (block !== 0x2c) break // corrupt: judge by the frames seen so far
    if (++frames > 1) return true
    const flags = bytes[i + 9]
    i += 10
    if (flags & 0x80) i += 3 * 2 ** ((flags & 0x07) + 1) // local colour table
    i = skipSubBlocks(bytes, i + 1) // LZW minimum code size, then image data
  }
  return false
}
