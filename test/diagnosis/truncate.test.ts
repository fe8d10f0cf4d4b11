import { describe, expect, test } from 'vitest'
import { fitMessages, fitPayload } from '../../src/diagnosis/render'
import { estimateTokens } from '../../src/diagnosis/tokens'
import { allocate, headTail } from '../../src/diagnosis/truncate'

describe('estimateTokens', () => {
  test('is ceil(chars / 4), the count the fake judge uses too', () => {
    expect([estimateTokens(''), estimateTokens('abc'), estimateTokens('abcd'), estimateTokens('abcde')]).toEqual([
      0, 1, 1, 2,
    ])
  })
})

describe('headTail', () => {
  test('returns text that fits unchanged', () => {
    expect(headTail('short text', 100)).toBe('short text')
  })

  test('keeps the head and the tail, and says how much of the middle was cut', () => {
    const text = `HEAD-${'m'.repeat(50_000)}-TAIL`
    const cut = headTail(text, 1000)
    expect(estimateTokens(cut)).toBeLessThanOrEqual(1000)
    expect(cut.startsWith('HEAD-')).toBe(true)
    expect(cut.endsWith('-TAIL')).toBe(true)
    const elided = Number(/\[… (\d+) chars \(~(\d+) tokens\) elided …\]/.exec(cut)?.[1])
    expect(elided + cut.length - /\n\[…[^\]]*\]\n/.exec(cut)![0].length).toBe(text.length)
  })

  test('never exceeds the budget, from tiny budgets to a 2M-char text', () => {
    const text = 'x'.repeat(2_000_000)
    for (const budget of [0, 1, 5, 17, 100, 4_000, 16_000])
      expect(estimateTokens(headTail(text, budget))).toBeLessThanOrEqual(budget)
  })

  test('does not split a surrogate pair at either cut', () => {
    const text = '😀'.repeat(10_000)
    const cut = headTail(text, 500)
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/)
  })
})

describe('allocate', () => {
  test('gives small parts what they want and shares the rest by weight', () => {
    expect(
      allocate(1000, [
        { wants: 100, weight: 1 },
        { wants: 5000, weight: 1 },
      ]),
    ).toEqual([100, 900])
    expect(
      allocate(900, [
        { wants: 5000, weight: 1 },
        { wants: 5000, weight: 2 },
      ]),
    ).toEqual([300, 600])
  })

  test('never hands out more than the total', () => {
    const grants = allocate(777, [
      { wants: 300, weight: 3 },
      { wants: 10, weight: 1 },
      { wants: 999, weight: 0.5 },
      { wants: 0, weight: 9 },
    ])
    expect(grants.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(777)
    expect(grants[1]).toBe(10)
    expect(grants[3]).toBe(0)
  })
})

describe('fitMessages', () => {
  const conversation = [
    { role: 'system', content: `SYSTEM-START ${'rules '.repeat(5000)} SYSTEM-END` },
    { role: 'user', content: 'New task: find the page numbers' },
    ...Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 ? 'tool-response' : 'assistant',
      content: `message ${i} ${'words '.repeat(400)}`,
    })),
    { role: 'user', content: 'LAST-MESSAGE: now answer' },
  ]

  test('keeps the whole conversation when it fits', () => {
    const small = conversation.slice(1, 3)
    expect(fitMessages(small, 10_000)).toBe(
      '[user]\nNew task: find the page numbers\n\n[assistant]\n' + small[1].content,
    )
  })

  test('keeps the system head and the newest messages, and names how many were elided', () => {
    const text = fitMessages(conversation, 4000)
    expect(estimateTokens(text)).toBeLessThanOrEqual(4000)
    expect(text.startsWith('[system]\nSYSTEM-START')).toBe(true)
    expect(text.endsWith('[user]\nLAST-MESSAGE: now answer')).toBe(true)
    const elided = Number(/\[… (\d+) messages \(\d+ chars, ~\d+ tokens\) elided …\]/.exec(text)?.[1])
    const kept = text.split('\n\n[').length - 1 - 1 // blocks after the system one, minus the marker
    expect(elided).toBeGreaterThan(0)
    expect(elided + kept).toBe(conversation.length - 1)
  })

  test('cuts a single 2M-char newest message rather than dropping it', () => {
    const text = fitMessages(
      [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: `Q ${'z'.repeat(2_000_000)} END` },
      ],
      2000,
    )
    expect(estimateTokens(text)).toBeLessThanOrEqual(2000)
    expect(text).toContain('[system]\nbe brief')
    expect(text).toMatch(/\[user\]\nQ z+\n\[… \d+ chars/)
    expect(text.endsWith('END')).toBe(true)
  })

  test('fitPayload cuts non-message payloads head+tail', () => {
    const text = fitPayload({ page: 'p'.repeat(100_000) }, 300)
    expect(estimateTokens(text)).toBeLessThanOrEqual(300)
    expect(text.startsWith('{"page":"ppp')).toBe(true)
  })
})
