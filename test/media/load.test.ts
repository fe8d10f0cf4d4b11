import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { ImageInputError } from '../../src/media/errors'
import { loadImage } from '../../src/media/load'
import { toImagePart } from '../../src/media/loaded-image'
import { rejectionOf } from '../helpers/rejection'

const fixturePath = (name: string) => new URL(`../fixtures/images/${name}`, import.meta.url).pathname
const fixture = (name: string) => readFileSync(fixturePath(name))
// Computed with sha256sum(1) when the fixtures were copied in.
const CHART_PNG_SHA256 = 'd53afb2fd1cb77d8b7b8a499563071c9ac3aa2f3ae9c635d726dee32a20daeca'

const rejection = (promise: Promise<unknown>) => rejectionOf(promise, ImageInputError)

describe('loadImage', () => {
  it('loads a path: format, size, byte length and a stable sha256 digest', async () => {
    const image = await loadImage(fixturePath('revenue-by-region.png'))
    expect(image).toMatchObject({
      format: 'png',
      width: 720,
      height: 480,
      byteLength: 22529,
      animated: false,
      digest: CHART_PNG_SHA256,
    })
    expect(image.source).toBe(fixturePath('revenue-by-region.png'))
  })

  it('gives the same digest for every way of passing the same bytes', async () => {
    const bytes = fixture('revenue-by-region.png')
    const inputs = [
      bytes,
      new Uint8Array(bytes),
      pathToFileURL(fixturePath('revenue-by-region.png')),
      `data:image/png;base64,${bytes.toString('base64')}`,
      new URL(`data:image/png;base64,${bytes.toString('base64')}`),
    ]
    for (const input of inputs) expect((await loadImage(input)).digest).toBe(CHART_PNG_SHA256)
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(CHART_PNG_SHA256)
  })

  it('describes data URLs and buffers briefly in `source`', async () => {
    const bytes = fixture('shapes.gif')
    expect((await loadImage(`data:image/gif;base64,${bytes.toString('base64')}`)).source).toBe('data URL (image/gif)')
    expect((await loadImage(bytes)).source).toBe(`Buffer (${bytes.length} bytes)`)
    expect((await loadImage(new Uint8Array(bytes))).source).toBe(`Uint8Array (${bytes.length} bytes)`)
  })

  it('detects JPEG bytes in a file named .png as jpeg', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-media-'))
    const misnamed = join(dir, 'chart.png')
    writeFileSync(misnamed, fixture('revenue-by-region.jpg'))
    expect(await loadImage(misnamed)).toMatchObject({ format: 'jpeg', width: 720, height: 480 })
  })

  it('copies caller buffers so later mutation cannot change a loaded image', async () => {
    const bytes = Buffer.from(fixture('shapes.png'))
    const image = await loadImage(bytes)
    bytes.fill(0)
    expect(createHash('sha256').update(image.bytes).digest('hex')).toBe(image.digest)
    expect(image.format).toBe('png')
  })

  it.each([
    [
      'svg',
      Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'),
      /SVG is not supported by judge models: render it to PNG first/,
    ],
    ['pdf', Buffer.from('%PDF-1.4\n'), /PDF .*render the page to PNG first/],
    ['empty', Buffer.alloc(0), /empty \(0 bytes\)/],
    ['unknown', Buffer.from([1, 2, 3, 4, 5]), /unrecognised image bytes.*first bytes: 01 02 03 04 05/],
  ])('rejects %s bytes with an ImageInputError naming the type', async (kind, bytes, message) => {
    const err = await rejection(loadImage(bytes))
    expect(err.detected).toBe(kind)
    expect(err.message).toMatch(message)
    expect(err.source).toBe(`Buffer (${bytes.length} bytes)`)
  })

  it('rejects a supported format whose header is cut off', async () => {
    const err = await rejection(loadImage(fixture('revenue-by-region.jpg').subarray(0, 30)))
    expect(err.detected).toBe('jpeg')
    expect(err.message).toContain('JPEG header is truncated or corrupt')
  })

  it('names the resolved path and cwd when a file is missing', async () => {
    const err = await rejection(loadImage('no/such/chart.png'))
    expect(err.message).toContain('image file not found')
    expect(err.message).toContain(join(process.cwd(), 'no/such/chart.png'))
  })

  it('rejects malformed data URLs and honours maxBytes for every source', async () => {
    expect((await rejection(loadImage('data:image/png;base64'))).message).toContain('malformed data URL')
    expect((await rejection(loadImage('data:image/png;base64,@@@@'))).message).toContain('invalid characters')
    const err = await rejection(loadImage(fixturePath('shapes.png'), { maxBytes: 1000 }))
    expect(err.limit).toBe('maxBytes')
    expect((await rejection(loadImage(fixture('shapes.png'), { maxBytes: 1000 }))).limit).toBe('maxBytes')
  })

  it('makes no network request for local inputs', async () => {
    const spy = vi.spyOn(globalThis, 'fetch')
    await loadImage(fixturePath('shapes.png'), { provider: 'bedrock' })
    await loadImage(fixture('shapes.gif'), { provider: 'openai' })
    expect(spy).not.toHaveBeenCalled()
    spy.mockRestore()
  })
})

describe('toImagePart', () => {
  it('turns a loaded image into an image content part with its bytes and digest', async () => {
    const image = await loadImage(fixturePath('shapes.gif'))
    const part = toImagePart(image)
    expect(part).toEqual({ type: 'image', bytes: image.bytes, format: 'gif', digest: image.digest })
  })
})
