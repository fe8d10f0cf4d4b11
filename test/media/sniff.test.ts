import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { rejectionAdvice, sniffImage } from '../../src/media/sniff'
import { gif, pngHeader, WEBP_1X1_LOSSLESS } from './synthetic'

const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url))

describe('sniffImage', () => {
  it.each([
    ['revenue-by-region.png', 'png'],
    ['revenue-by-region.jpg', 'jpeg'],
    ['shapes.gif', 'gif'],
    ['shapes.png', 'png'],
  ])('detects %s as %s from its bytes', (name, kind) => {
    expect(sniffImage(fixture(name))).toBe(kind)
  })

  it('detects webp, including a hand-built 1×1 lossless file', () => {
    expect(sniffImage(WEBP_1X1_LOSSLESS)).toBe('webp')
  })

  it.each([
    ['svg', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'],
    ['svg', '\uFEFF<?xml version="1.0"?>\n<!-- drawn by hand -->\n<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['svg', '  <!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x"><svg/>'],
    ['pdf', '%PDF-1.7\n%âãÏÓ\n1 0 obj'],
    ['html', '<!DOCTYPE html><html><body>Sign in</body></html>'],
  ])('recognises rejected text format %s', (kind, text) => {
    expect(sniffImage(Buffer.from(text))).toBe(kind)
  })

  it.each([
    ['bmp', [0x42, 0x4d, 0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0, 1, 0]],
    ['tiff', [0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]],
    ['tiff', [0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]],
    ['ico', [0, 0, 1, 0, 1, 0, 16, 16, 0, 0]],
    ['heic', [0, 0, 0, 0x18, ...Buffer.from('ftypheic\0\0\0\0mif1heic')]],
    ['avif', [0, 0, 0, 0x1c, ...Buffer.from('ftypmif1\0\0\0\0mif1avifmiaf')]],
    ['video', [0, 0, 0, 0x14, ...Buffer.from('ftypisom\0\0\0\0isom')]],
    ['empty', []],
    ['unknown', [0x3f, 0x12, 0x00, 0x99, 0x42]],
    ['unknown', [...Buffer.from('BM not a bitmap')]], // "BM" alone is not enough for BMP
  ])('recognises rejected binary format %s', (kind, bytes) => {
    expect(sniffImage(Uint8Array.from(bytes))).toBe(kind)
  })

  it('needs the full 8-byte PNG signature', () => {
    const png = pngHeader(4, 4)
    expect(sniffImage(png)).toBe('png')
    const broken = Buffer.from(png)
    broken[7] = 0x00
    expect(sniffImage(broken)).toBe('unknown')
  })

  it('gives advice that says what to do, with the first bytes of unknown data', () => {
    expect(rejectionAdvice('svg')).toBe('SVG is not supported by judge models: render it to PNG first')
    expect(rejectionAdvice('unknown', Uint8Array.from([0xde, 0xad, 0xbe, 0xef]))).toContain(
      '(first bytes: de ad be ef)',
    )
    expect(rejectionAdvice('png')).toBe('')
    expect(sniffImage(gif(1))).toBe('gif')
  })
})
