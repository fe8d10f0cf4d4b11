// Image paths that are not regular files are refused before any read, and every file read is capped.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ImageInputError } from '../../src/media/errors'
import { DEFAULT_FETCH_MAX_BYTES } from '../../src/media/fetch'
import { loadImage } from '../../src/media/load'
import { rejectionOf } from '../helpers/rejection'

const tmp = mkdtempSync(join(tmpdir(), 'image-bounded-'))
const HAVE_MKFIFO = process.platform !== 'win32' && spawnSync('mkfifo', [join(tmp, 'probe')]).status === 0

async function refused(path: string): Promise<ImageInputError> {
  return rejectionOf(loadImage(path), ImageInputError)
}

describe('image paths that are not regular files', () => {
  it.skipIf(!HAVE_MKFIFO)('a FIFO with no writer is refused at once, not waited on', async () => {
    const fifo = join(tmp, 'image.fifo')
    spawnSync('mkfifo', [fifo])
    const err = await refused(fifo)
    expect(err.message).toBe(
      `${fifo}: is a FIFO (named pipe), not a regular file, so it is not read (it could block or never end) — save the image to a file, or read it yourself and pass the bytes as a Buffer`,
    )
    expect(err.source).toBe(fifo)
  })

  it.skipIf(!existsSync('/dev/zero'))(
    '/dev/zero (endless) is refused before reading, also through a symlink or a file: URL',
    async () => {
      expect((await refused('/dev/zero')).message).toMatch(
        /^\/dev\/zero: is a character device, not a regular file, so it is not read/,
      )
      const link = join(tmp, 'photo.png')
      symlinkSync('/dev/zero', link)
      expect((await refused(link)).message).toMatch(/is a character device/)
      expect((await rejectionOf(loadImage(new URL('file:///dev/zero')), ImageInputError)).message).toMatch(
        /is a character device/,
      )
    },
  )

  it('a directory is refused with what to pass instead', async () => {
    expect((await refused(tmp)).message).toBe(
      `${tmp}: is a directory, not an image file — pass the path of an image file`,
    )
  })
})

describe('bounded reads', () => {
  it('a file over the default cap is refused from its size, without reading it (sparse 2 GB file)', async () => {
    const huge = join(tmp, 'huge.png')
    writeFileSync(huge, '')
    truncateSync(huge, 2 * 1024 ** 3)
    const err = await refused(huge)
    expect(err.limit).toBe('maxBytes')
    expect(err.message).toBe(
      `${huge}: file is ${2 * 1024 ** 3} bytes, over the ${DEFAULT_FETCH_MAX_BYTES}-byte default cap (no judge provider accepts more per image) — downscale the image, or raise maxBytes`,
    )
  })

  it('an explicit maxBytes still names maxBytes', async () => {
    const small = join(tmp, 'small.png')
    writeFileSync(small, Buffer.alloc(5_000))
    const err = await rejectionOf(loadImage(small, { maxBytes: 1_000 }), ImageInputError)
    expect(err.limit).toBe('maxBytes')
    expect(err.message).toBe(
      `${small}: file is 5000 bytes, over maxBytes 1000 — pass a smaller image or raise maxBytes`,
    )
  })
})
