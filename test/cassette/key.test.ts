import { readFileSync } from 'node:fs'
import * as z from 'zod'
import { describe, expect, it } from 'vitest'
import { canonicalJson, cassetteKey } from '../../src/cassette/key'
import { loadImage } from '../../src/media/load'
import { toImagePart } from '../../src/media/loaded-image'
import { countingJudge, verdictRequest } from './helpers'

const chart = readFileSync(new URL('../fixtures/images/revenue-by-region.png', import.meta.url))
const judge = countingJudge({ provider: 'openai', model: 'gpt-4.1' })

describe('canonicalJson', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }, 'x'] })).toBe('{"a":[{"c":3,"d":2},"x"],"b":1}')
  })
})

describe('cassetteKey', () => {
  const base = verdictRequest('Is the answer supported by the chart?')

  it('is a stable sha256 hex for the same judge and request', () => {
    const key = cassetteKey(judge, base)
    expect(key).toMatch(/^[0-9a-f]{64}$/)
    expect(
      cassetteKey(
        countingJudge({ provider: 'openai', model: 'gpt-4.1' }),
        verdictRequest('Is the answer supported by the chart?'),
      ),
    ).toBe(key)
  })

  it('changes with the rubric text, system prompt, model, provider and prompt version', () => {
    const key = cassetteKey(judge, base)
    const variants = [
      cassetteKey(judge, verdictRequest('Is the answer supported by the chart? ')),
      cassetteKey(judge, { ...base, system: `${base.system}!` }),
      cassetteKey(countingJudge({ provider: 'openai', model: 'gpt-4.1-mini' }), base),
      cassetteKey(countingJudge({ provider: 'openai-compatible', model: 'gpt-4.1' }), base),
      cassetteKey(judge, verdictRequest('Is the answer supported by the chart?', { promptVersion: 'faithfulness@2' })),
    ]
    expect(new Set([key, ...variants]).size).toBe(variants.length + 1)
  })

  it('does not change with line ends (CRLF, CR, LF): an autocrlf checkout replays the LF recording', () => {
    const lfText = 'Answer:\n42\n\nSource: the chart'
    const key = cassetteKey(judge, verdictRequest(lfText))
    expect(cassetteKey(judge, verdictRequest(lfText.replaceAll('\n', '\r\n')))).toBe(key)
    expect(cassetteKey(judge, verdictRequest(lfText.replaceAll('\n', '\r')))).toBe(key)
    const system = 'You are a careful judge.\nReason first, then score 1-5.'
    expect(cassetteKey(judge, { ...base, system: system.replaceAll('\n', '\r\n') })).toBe(
      cassetteKey(judge, { ...base, system }),
    )
    // Only line ends: a CR that adds a line, or text that differs otherwise, still changes the key.
    expect(cassetteKey(judge, verdictRequest('Answer:\n\n42\n\nSource: the chart'))).not.toBe(key)
    expect(cassetteKey(judge, verdictRequest('Answer:\r\n\r42\n\nSource: the chart'))).not.toBe(key)
  })

  it('changes when one image byte changes, and with image order', async () => {
    const original = toImagePart(await loadImage(chart))
    const altered = Buffer.from(chart)
    altered[altered.length - 20] ^= 0x01
    const changed = toImagePart(await loadImage(altered))
    const other = toImagePart(await loadImage(new URL('../fixtures/images/shapes.png', import.meta.url)))
    const withImages = (images: (typeof original)[]) =>
      cassetteKey(judge, verdictRequest('Describe the chart.', { images }))
    expect(withImages([original])).toBe(withImages([toImagePart(await loadImage(Buffer.from(chart)))]))
    expect(withImages([changed])).not.toBe(withImages([original]))
    expect(withImages([original, other])).not.toBe(withImages([other, original]))
  })

  it('changes with the output schema and its name, not with the metric label', () => {
    const key = cassetteKey(judge, base)
    const wider = z.object({ reasoning: z.string(), score: z.number().int().min(1).max(10) })
    expect(cassetteKey(judge, { ...base, schema: wider })).not.toBe(key)
    expect(cassetteKey(judge, { ...base, schemaName: 'verdict_v2' })).not.toBe(key)
    expect(cassetteKey(judge, { ...base, metric: 'renamed-metric' })).toBe(key)
  })

  it('gives repeats of one request (samples) distinct keys', () => {
    const keys = [0, 1, 2].map((n) => cassetteKey(judge, base, n))
    expect(new Set(keys).size).toBe(3)
    expect(keys[0]).toBe(cassetteKey(judge, base))
  })
})
