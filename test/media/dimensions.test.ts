import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { isAnimated, readDimensions } from '../../src/media/dimensions'
import { gif, pngHeader, WEBP_1X1_LOSSLESS, webpExtendedHeader, webpLosslessHeader, webpLossyHeader } from './synthetic'

const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url))

describe('readDimensions', () => {
  // Sizes as reported by file(1) for the shared fixtures.
  it.each([
    ['revenue-by-region.png', 'png', 720, 480],
    ['revenue-by-region.jpg', 'jpeg', 720, 480],
    ['shapes.png', 'png', 400, 300],
    ['shapes.gif', 'gif', 400, 300],
  ] as const)('reads %s as %i×%i', (name, format, width, height) => {
    expect(readDimensions(fixture(name), format)).toEqual({ width, height })
  })

  it('scans past JPEG APPn segments to the SOF header (progressive SOF2 too)', () => {
    const jpeg = Buffer.from(fixture('revenue-by-region.jpg'))
    const sof0 = jpeg.indexOf(Buffer.from([0xff, 0xc0]))
    expect(sof0).toBeGreaterThan(2) // the fixture has a JFIF APP0 segment first
    jpeg[sof0 + 1] = 0xc2
    expect(readDimensions(jpeg, 'jpeg')).toEqual({ width: 720, height: 480 })
  })

  it('reads WEBP sizes from VP8L, VP8 and VP8X headers', () => {
    expect(readDimensions(WEBP_1X1_LOSSLESS, 'webp')).toEqual({ width: 1, height: 1 })
    expect(readDimensions(webpLosslessHeader(300, 200), 'webp')).toEqual({ width: 300, height: 200 })
    expect(readDimensions(webpLosslessHeader(16384, 1), 'webp')).toEqual({ width: 16384, height: 1 })
    expect(readDimensions(webpLossyHeader(640, 360), 'webp')).toEqual({ width: 640, height: 360 })
    expect(readDimensions(webpExtendedHeader(9000, 70000), 'webp')).toEqual({ width: 9000, height: 70000 })
  })

  it('reads big sizes a synthetic PNG header claims', () => {
    expect(readDimensions(pngHeader(9000, 9000), 'png')).toEqual({ width: 9000, height: 9000 })
  })

  it('returns null for truncated headers instead of inventing a size', () => {
    expect(readDimensions(fixture('shapes.png').subarray(0, 20), 'png')).toBeNull()
    expect(readDimensions(fixture('revenue-by-region.jpg').subarray(0, 40), 'jpeg')).toBeNull()
    expect(readDimensions(WEBP_1X1_LOSSLESS.subarray(0, 22), 'webp')).toBeNull()
    expect(readDimensions(pngHeader(0, 10), 'png')).toBeNull()
  })
})

describe('isAnimated', () => {
  it('counts GIF frames by walking the block structure', () => {
    expect(isAnimated(gif(1), 'gif')).toBe(false)
    expect(isAnimated(gif(2), 'gif')).toBe(true)
    expect(isAnimated(fixture('shapes.gif'), 'gif')).toBe(false)
  })

  it('reads the WEBP animation flag', () => {
    expect(isAnimated(webpExtendedHeader(10, 10, true), 'webp')).toBe(true)
    expect(isAnimated(webpExtendedHeader(10, 10, false), 'webp')).toBe(false)
    expect(isAnimated(fixture('shapes.png'), 'png')).toBe(false)
  })
})
