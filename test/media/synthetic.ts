// Hand-built image bytes for cases the shared fixtures do not cover (webp, animation, huge headers).
import { crc32 } from 'node:zlib'

function chunk(type: string, data: Uint8Array): Buffer {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([len, body, crc])
}

/** A PNG signature + IHDR claiming `width`×`height` (+ IEND), optionally padded to `padTo` bytes. */
export function pngHeader(width: number, height: number, padTo = 0): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, no interlace
  const head = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr)])
  const pad = Math.max(0, padTo - head.length - 12 - 12)
  return Buffer.concat([
    head,
    ...(pad ? [chunk('tEXt', Buffer.alloc(pad, 0x61))] : []),
    chunk('IEND', new Uint8Array()),
  ])
}

/** A valid 1×1 GIF89a with `frames` frames (2+ = animated). */
export function gif(frames: number): Buffer {
  const head = [...Buffer.from('GIF89a', 'latin1'), 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]
  const frame = [0x21, 0xf9, 4, 0, 10, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
  return Buffer.from([...head, ...Array.from({ length: frames }, () => frame).flat(), 0x3b])
}

function riff(fourcc: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([
    Buffer.from('WEBP', 'latin1'),
    Buffer.from(fourcc, 'latin1'),
    u32le(data.length),
    data,
    ...(data.length % 2 ? [Buffer.alloc(1)] : []),
  ])
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(body.length), body])
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32LE(n >>> 0)
  return b
}

/** The smallest valid lossless WEBP: 1×1, transparent (a complete VP8L bitstream). */
export const WEBP_1X1_LOSSLESS = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64')

/** A VP8L header for `width`×`height` (header only: the pixel stream is not encoded). */
export function webpLosslessHeader(width: number, height: number): Buffer {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14)
  return riff('VP8L', Buffer.concat([Buffer.from([0x2f]), u32le(bits), Buffer.alloc(8)]))
}

/** A VP8 (lossy) key-frame header for `width`×`height` (header only). */
export function webpLossyHeader(width: number, height: number): Buffer {
  const data = Buffer.alloc(16)
  data.set([0x9d, 0x01, 0x2a], 3)
  data.writeUInt16LE(width, 6)
  data.writeUInt16LE(height, 8)
  return riff('VP8 ', data)
}

/** A VP8X (extended) header for a `width`×`height` canvas; `animated` sets the animation flag. */
export function webpExtendedHeader(width: number, height: number, animated = false): Buffer {
  const data = Buffer.alloc(10)
  data[0] = animated ? 0x02 : 0
  data.writeUIntLE(width - 1, 4, 3)
  data.writeUIntLE(height - 1, 7, 3)
  return riff('VP8X', data)
}
