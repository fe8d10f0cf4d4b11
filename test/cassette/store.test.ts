import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CassetteFormatError } from '../../src/cassette/errors'
import { cassettePathFor, readCassette, serializeCassette, updateCassette, type CassetteEntry } from '../../src/cassette/store'
import { tempDir } from './helpers'
import { rejectionOf } from '../helpers/rejection'

const KEY_A = 'a'.repeat(64)
const KEY_B = 'b'.repeat(64)
const entry = (metric: string): CassetteEntry => ({
  metric,
  provider: 'openai',
  model: 'gpt-4.1',
  promptVersion: `${metric}@1`,
  recordedAt: '2026-03-18T09:30:00.000Z',
  output: { reasoning: 'the chart shows it', score: 4 },
  usage: { inputTokens: 812, outputTokens: 64 },
  latencyMs: 1234,
  costUsd: 0.002136,
})

const formatError = (promise: Promise<unknown>) => rejectionOf(promise, CassetteFormatError)

describe('cassettePathFor', () => {
  it('puts the cassette in __verdicts__ beside the test file', () => {
    expect(cassettePathFor('test/chart.test.ts')).toBe(join('test', '__verdicts__', 'chart.test.ts.json'))
    expect(cassettePathFor('/repo/test/e2e/run.spec.mts')).toBe('/repo/test/e2e/__verdicts__/run.spec.mts.json')
  })
})

describe('serializeCassette', () => {
  it('sorts entries by key, orders entry fields, indents by 2 spaces and ends with a newline', () => {
    const shuffled = { ...entry('faithfulness'), costUsd: 0.1, metric: 'correctness' } as CassetteEntry
    const reordered = Object.fromEntries(Object.entries(shuffled).reverse()) as CassetteEntry
    const text = serializeCassette({ version: 1, entries: { [KEY_B]: reordered, [KEY_A]: entry('faithfulness') } })
    expect(text.endsWith('}\n')).toBe(true)
    expect(text.indexOf(KEY_A)).toBeLessThan(text.indexOf(KEY_B))
    const fields = Object.keys(JSON.parse(text).entries[KEY_B])
    expect(fields).toEqual(['metric', 'provider', 'model', 'promptVersion', 'recordedAt', 'output', 'usage', 'latencyMs', 'costUsd'])
    expect(text).toContain('\n  "entries": {\n    "aaaa')
  })

  it('drops anything that is not an entry field (no credentials can slip in)', () => {
    const leaky = { ...entry('x'), headers: { authorization: 'Bearer sk-planted-123456789' } } as CassetteEntry
    expect(serializeCassette({ version: 1, entries: { [KEY_A]: leaky } })).not.toContain('planted')
  })
})

describe('readCassette', () => {
  it('reads a missing file as an empty cassette', async () => {
    expect(await readCassette(join(tempDir(), 'none.json'))).toEqual({ version: 1, entries: {} })
  })

  it('round-trips what serializeCassette wrote', async () => {
    const file = join(tempDir(), 'a.json')
    const cassette = { version: 1 as const, entries: { [KEY_A]: entry('faithfulness') } }
    writeFileSync(file, serializeCassette(cassette))
    expect(await readCassette(file)).toEqual(cassette)
  })

  it('names the file and says to delete or fix it when the JSON is corrupt', async () => {
    const file = join(tempDir(), 'corrupt.json')
    writeFileSync(file, '{"version":1,"entries":{')
    const err = await formatError(readCassette(file))
    expect(err.file).toBe(file)
    expect(err.message).toMatch(/^cassette .*corrupt\.json is not valid JSON \(.*\) — delete it to re-record its verdicts, or fix it$/)
  })

  it('points at the invalid field and at merge conflict markers', async () => {
    const file = join(tempDir(), 'invalid.json')
    writeFileSync(file, JSON.stringify({ version: 1, entries: { [KEY_A]: { ...entry('x'), usage: { inputTokens: -1, outputTokens: 0 } } } }))
    expect((await formatError(readCassette(file))).message).toContain(`at entries.${KEY_A}.usage.inputTokens:`)
    writeFileSync(file, '<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> branch\n')
    expect((await formatError(readCassette(file))).message).toContain('unresolved git merge conflict markers')
    writeFileSync(file, JSON.stringify({ version: 2, entries: {} }))
    expect((await formatError(readCassette(file))).message).toContain('at version:')
  })
})

describe('updateCassette', () => {
  it('creates __verdicts__, merges with what is on disk and leaves no temp or lock files', async () => {
    const dir = tempDir()
    const file = cassettePathFor(join(dir, 'chart.test.ts'))
    await updateCassette(file, (c) => { c.entries[KEY_B] = entry('b') })
    const merged = await updateCassette(file, (c) => { c.entries[KEY_A] = entry('a') })
    expect(Object.keys(merged.entries)).toEqual([KEY_B, KEY_A])
    expect(Object.keys((await readCassette(file)).entries)).toEqual([KEY_A, KEY_B])
    expect(readdirSync(join(dir, '__verdicts__'))).toEqual(['chart.test.ts.json'])
  })

  it('serializes concurrent in-process updates without losing any', async () => {
    const file = join(tempDir(), 'many.json')
    const keys = Array.from({ length: 40 }, (_, i) => i.toString(16).padStart(64, '0'))
    await Promise.all(keys.map((k) => updateCassette(file, (c) => { c.entries[k] = entry(k.slice(-4)) })))
    expect(Object.keys((await readCassette(file)).entries).sort()).toEqual(keys)
  })

  it('removes the file when the last entry goes', async () => {
    const file = join(tempDir(), 'gone.json')
    await updateCassette(file, (c) => { c.entries[KEY_A] = entry('a') })
    await updateCassette(file, (c) => { delete c.entries[KEY_A] })
    expect(existsSync(file)).toBe(false)
  })

  it('refuses to overwrite a corrupt file', async () => {
    const dir = tempDir()
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'corrupt.json')
    writeFileSync(file, 'not json')
    await formatError(updateCassette(file, (c) => { c.entries[KEY_A] = entry('a') }))
    expect(readFileSync(file, 'utf8')).toBe('not json')
  })
})
