import { describe, expect, it, vi } from 'vitest'
import { ImageInputError } from '../../src/media/errors'
import { checkImageLimits, IMAGE_LIMITS, imageLimitsFor } from '../../src/media/limits'
import { loadImage } from '../../src/media/load'
import { gif, pngHeader } from './synthetic'
import { rejectionOf } from '../helpers/rejection'

const rejection = (promise: Promise<unknown>) => rejectionOf(promise, ImageInputError)

describe('provider image limits', () => {
  it('refuses a PNG claiming 9000×9000 for Bedrock before any network call', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>()
    const err = await rejection(loadImage(pngHeader(9000, 9000), { provider: 'bedrock', fetch }))
    expect(err.limit).toBe('maxDimensions')
    expect(err.message).toContain('9000×9000 px')
    expect(err.message).toContain("Bedrock Converse's limit of 8000×8000 px")
    expect(err.message).toContain('downscale it to ≤ 8000 px on each side')
    expect(fetch).not.toHaveBeenCalled()
    // OpenAI has no pixel cap of its own (it downsamples), so the same image passes there.
    await expect(loadImage(pngHeader(9000, 9000), { provider: 'openai' })).resolves.toMatchObject({ width: 9000 })
  })

  it('refuses a 4 MB image for Bedrock (3.75 MB cap) and accepts it for OpenAI (20 MB)', async () => {
    const big = pngHeader(1000, 1000, 4 * 1024 * 1024)
    expect(big.length).toBe(4 * 1024 * 1024)
    const err = await rejection(loadImage(big, { provider: 'bedrock' }))
    expect(err.limit).toBe('maxBytes')
    expect(err.message).toMatch(
      /image is 4\.00 MB, over Bedrock Converse's limit of 3\.75 MB per image — downscale it or convert it to JPEG/,
    )
    await expect(loadImage(big, { provider: 'openai' })).resolves.toMatchObject({ byteLength: big.length })
    const justUnder = pngHeader(1000, 1000, IMAGE_LIMITS.bedrock.maxBytes)
    await expect(loadImage(justUnder, { provider: 'bedrock' })).resolves.toMatchObject({
      byteLength: IMAGE_LIMITS.bedrock.maxBytes,
    })
  })

  it('refuses animated GIFs for OpenAI and OpenAI-compatible servers, not for Bedrock', async () => {
    for (const provider of ['openai', 'openai-compatible']) {
      const err = await rejection(loadImage(gif(3), { provider }))
      expect(err.limit).toBe('animatedGif')
      expect(err.message).toContain('pass a single frame as PNG')
    }
    await expect(loadImage(gif(3), { provider: 'bedrock' })).resolves.toMatchObject({ format: 'gif', animated: true })
    await expect(loadImage(gif(1), { provider: 'openai' })).resolves.toMatchObject({ animated: false })
  })

  it('treats unknown providers as OpenAI-compatible and accepts custom limits', async () => {
    expect(imageLimitsFor('vllm')).toBe(IMAGE_LIMITS['openai-compatible'])
    const image = await loadImage(pngHeader(100, 50))
    expect(() =>
      checkImageLimits(image, { label: 'Tiny', maxBytes: 10, formats: ['png'], animatedGif: false }),
    ).toThrow(/over Tiny's limit/)
    expect(() =>
      checkImageLimits(image, { label: 'JpegOnly', maxBytes: 1e6, formats: ['jpeg'], animatedGif: false }),
    ).toThrow(/PNG is not accepted by JpegOnly/)
    expect(() => checkImageLimits(image, 'bedrock')).not.toThrow()
  })
})
