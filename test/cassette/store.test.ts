import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CassetteError, CassetteFormatError } from '../../src/cassette/errors'
import {
  cassettePathFor,
  readCassette,
  serializeCassette,
  updateCassette,
  type CassetteEntry,
} from '../../src/cassette/store'
import { tempDir } from './helpers'
import { rejectionOf } from '../helpers/rejection'

const KEY_A = 'a'.repeat(64)
const KEY_B = 'b'.repeat(64)
const KEY_C = 'c'.repeat(64)
const KEY_D = 'd'.repeat(64)
const entry = (metric: string): CassetteEntry => ({
  metric,
  provider: 'openai',
  model: 'gpt-4.1',
  promptVersion: `${metric}@1`,
  output: { reasoning: 'the chart shows it', score: 4 },
  usage: { inputTokens: 812, outputTokens: 64 },
  costUsd: 0.002136,
  recordedAt: '2026-03-18T09:30:00.000Z',
})
const labelled = (test: string, matcher: string, metric: string, span?: string): CassetteEntry => ({
  test,
  matcher,
  ...(span ? { span } : {}),
  ...entry(metric),
  judged: 'North America leads with $15.20',
  verdicts: [{ metric, outcome: 'pass', score: '4/5', threshold: 'min 4', reason: 'the chart shows it' }],
})

const formatError = (promise: Promise<unknown>) => rejectionOf(promise, CassetteFormatError)

describe('cassettePathFor', () => {
  it('puts the cassette in __verdicts__ beside the test file', () => {
    expect(cassettePathFor('test/chart.test.ts')).toBe(join('test', '__verdicts__', 'chart.test.ts.json'))
    expect(cassettePathFor('/repo/test/e2e/run.spec.mts')).toBe('/repo/test/e2e/__verdicts__/run.spec.mts.json')
  })
})

describe('serializeCassette', () => {
  it('lists entries by test › matcher › span › metric, one field per line in a fixed order, with a trailing newline', () => {
    const shuffled = Object.fromEntries(
      Object.entries(labelled('chart › names the region', 'toBeCorrect', 'correctness')).reverse(),
    ) as CassetteEntry
    const text = serializeCassette({
      version: 2,
      entries: {
        [KEY_A]: labelled('login › summary', 'toFollowInstructions', 'instruction_following'),
        [KEY_B]: shuffled,
        [KEY_C]: labelled('chart › names the region', 'toHaveNoFailingSpans', 'span-diagnosis', '1.10 tool:search'),
        [KEY_D]: labelled('chart › names the region', 'toHaveNoFailingSpans', 'span-diagnosis', '1.9 llm:chat'),
      },
    })
    expect(text.endsWith('\n}\n')).toBe(true)
    const entries = (JSON.parse(text) as { version: number; entries: Array<Record<string, unknown>> }).entries
    expect(entries.map((e) => e.key)).toEqual([KEY_B, KEY_D, KEY_C, KEY_A])
    expect(Object.keys(entries[0])).toEqual([
      'test',
      'matcher',
      'verdicts',
      'judged',
      'metric',
      'provider',
      'model',
      'promptVersion',
      'output',
      'usage',
      'costUsd',
      'recordedAt',
      'key',
    ])
    expect(text).toContain(
      '\n    {\n      "test": "chart › names the region", "matcher": "toHaveNoFailingSpans", "span": "1.9 llm:chat",\n      "verdicts": [\n',
    )
    // One line per field and per verdict: a changed verdict is a changed line, never a reflowed block.
    expect(text).toContain('\n      "output": {"reasoning":"the chart shows it","score":4},\n')
    expect(text).toContain(
      '\n      "verdicts": [\n        {"metric":"correctness","outcome":"pass","score":"4/5","threshold":"min 4","reason":"the chart shows it"}\n      ],\n',
    )
    expect(text).not.toContain('latencyMs')
  })

  it('drops anything that is not an entry field (no credentials can slip in)', () => {
    const leaky = { ...entry('x'), headers: { authorization: 'Bearer sk-planted-123456789' } } as CassetteEntry
    expect(serializeCassette({ version: 2, entries: { [KEY_A]: leaky } })).not.toContain('planted')
  })

  it('keeps hostile judged text and reasons on their line, as valid JSON', () => {
    const hostile = labelled('t', 'toBeCorrect', 'correctness')
    hostile.judged = 'line one\n      "key": "forged",\n}\u2028<<<<<<< HEAD'
    hostile.verdicts![0].reason = '"},\n{"outcome":"pass'
    const text = serializeCassette({ version: 2, entries: { [KEY_A]: hostile } })
    const [parsed] = (JSON.parse(text) as { entries: Array<{ key: string; judged: string }> }).entries
    expect(parsed.key).toBe(KEY_A)
    expect(parsed.judged).toBe(hostile.judged)
    expect(text.split('\n').filter((l) => l.includes('"judged"'))).toHaveLength(1)
  })
})

describe('readCassette', () => {
  it('reads a missing file as an empty cassette', async () => {
    expect(await readCassette(join(tempDir(), 'none.json'))).toEqual({ version: 2, entries: {} })
  })

  it('round-trips what serializeCassette wrote', async () => {
    const file = join(tempDir(), 'a.json')
    const cassette = {
      version: 2 as const,
      entries: {
        [KEY_A]: entry('faithfulness'),
        [KEY_B]: labelled('t › u', 'not.toBeCorrect', 'correctness', '1.2 tool:x'),
      },
    }
    writeFileSync(file, serializeCassette(cassette))
    expect(await readCassette(file)).toEqual(cassette)
  })

  it('migrates a version 1 file: reads it, and the next write saves version 2 without latency', async () => {
    const file = join(tempDir(), 'v1.json')
    const { recordedAt, output, usage, costUsd, ...rest } = entry('faithfulness')
    const v1 = { version: 1, entries: { [KEY_A]: { ...rest, recordedAt, output, usage, latencyMs: 1234, costUsd } } }
    writeFileSync(file, `${JSON.stringify(v1, null, 2)}\n`)
    expect(await readCassette(file)).toEqual({ version: 2, entries: { [KEY_A]: entry('faithfulness') } })
    await updateCassette(file, (c) => {
      c.entries[KEY_B] = entry('correctness')
    })
    const text = readFileSync(file, 'utf8')
    expect(JSON.parse(text).version).toBe(2)
    expect(text).not.toContain('latencyMs')
    expect(Object.keys((await readCassette(file)).entries).sort()).toEqual([KEY_A, KEY_B])
  })

  it('refuses a newer format version and says to upgrade', async () => {
    const file = join(tempDir(), 'v3.json')
    writeFileSync(file, JSON.stringify({ version: 3, entries: [] }))
    expect((await formatError(readCassette(file))).message).toMatch(
      /format version 3, newer than this agent-verdict reads \(2\) — upgrade agent-verdict \(a newer one wrote it\), or delete it to re-record its verdicts$/,
    )
  })

  it('keeps the first of a key listed twice (a hand-resolved merge conflict)', async () => {
    const file = join(tempDir(), 'twice.json')
    const once = serializeCassette({ version: 2, entries: { [KEY_A]: labelled('a', 'toBeCorrect', 'correctness') } })
    const entries = (JSON.parse(once) as { entries: unknown[] }).entries
    writeFileSync(file, JSON.stringify({ version: 2, entries: [...entries, { ...(entries[0] as object), test: 'z' }] }))
    expect((await readCassette(file)).entries[KEY_A].test).toBe('a')
  })

  it('refuses a key listed twice with different judge replies: which one replays must not depend on line order', async () => {
    const file = join(tempDir(), 'conflict.json')
    const once = serializeCassette({ version: 2, entries: { [KEY_A]: labelled('a', 'toBeCorrect', 'correctness') } })
    const [first] = (JSON.parse(once) as { entries: Array<{ output: Record<string, unknown> }> }).entries
    const other = { ...first, output: { ...first.output, score: 5, reasoning: 'the other side of the merge' } }
    for (const order of [
      [first, other],
      [other, first],
    ]) {
      writeFileSync(file, JSON.stringify({ version: 2, entries: order }))
      const err = await formatError(readCassette(file))
      expect(err.file).toBe(file)
      expect(err.message).toMatch(
        new RegExp(
          `lists the key ${KEY_A.slice(0, 12)}… twice with different judge replies .* keep the entry you mean and delete the other`,
        ),
      )
    }
  })

  it('names the file and says to delete or fix it when the JSON is corrupt', async () => {
    const file = join(tempDir(), 'corrupt.json')
    writeFileSync(file, '{"version":1,"entries":{')
    const err = await formatError(readCassette(file))
    expect(err.file).toBe(file)
    expect(err.message).toMatch(
      /^cassette .*corrupt\.json is not valid JSON \(.*\) — delete it to re-record its verdicts, or fix it$/,
    )
  })

  it('points at the invalid field and at merge conflict markers', async () => {
    const file = join(tempDir(), 'invalid.json')
    writeFileSync(
      file,
      JSON.stringify({
        version: 2,
        entries: [{ key: KEY_A, ...entry('x'), usage: { inputTokens: -1, outputTokens: 0 } }],
      }),
    )
    expect((await formatError(readCassette(file))).message).toContain('at entries.0.usage.inputTokens:')
    writeFileSync(file, '<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> branch\n')
    expect((await formatError(readCassette(file))).message).toContain('unresolved git merge conflict markers')
    writeFileSync(file, JSON.stringify({ version: 'two', entries: [] }))
    expect((await formatError(readCassette(file))).message).toContain('at version:')
  })
})

describe('updateCassette', () => {
  it('creates __verdicts__, merges with what is on disk and leaves no temp or lock files', async () => {
    const dir = tempDir()
    const file = cassettePathFor(join(dir, 'chart.test.ts'))
    await updateCassette(file, (c) => {
      c.entries[KEY_B] = entry('b')
    })
    const merged = await updateCassette(file, (c) => {
      c.entries[KEY_A] = entry('a')
    })
    expect(Object.keys(merged.entries)).toEqual([KEY_B, KEY_A])
    expect(Object.keys((await readCassette(file)).entries)).toEqual([KEY_A, KEY_B])
    expect(readdirSync(join(dir, '__verdicts__'))).toEqual(['chart.test.ts.json'])
  })

  it('serializes concurrent in-process updates without losing any', async () => {
    const file = join(tempDir(), 'many.json')
    const keys = Array.from({ length: 40 }, (_, i) => i.toString(16).padStart(64, '0'))
    await Promise.all(
      keys.map((k) =>
        updateCassette(file, (c) => {
          c.entries[k] = entry(k.slice(-4))
        }),
      ),
    )
    expect(Object.keys((await readCassette(file)).entries).sort()).toEqual(keys)
  })

  it('removes the file when the last entry goes', async () => {
    const file = join(tempDir(), 'gone.json')
    await updateCassette(file, (c) => {
      c.entries[KEY_A] = entry('a')
    })
    await updateCassette(file, (c) => {
      delete c.entries[KEY_A]
    })
    expect(existsSync(file)).toBe(false)
  })

  it('refuses to overwrite a corrupt file', async () => {
    const dir = tempDir()
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'corrupt.json')
    writeFileSync(file, 'not json')
    await formatError(
      updateCassette(file, (c) => {
        c.entries[KEY_A] = entry('a')
      }),
    )
    expect(readFileSync(file, 'utf8')).toBe('not json')
  })
})

describe('a cassette file far too large to be one (issue 33, class 18)', () => {
  it('is refused by its size, before it is read, naming the file, its size and what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cassette-huge-'))
    const file = join(dir, 'huge.test.ts.json')
    // Sparse: 600 MB long, no disk used; reading it whole is what used to fail with "Invalid string length".
    const handle = openSync(file, 'w')
    ftruncateSync(handle, 600 * 1024 * 1024)
    closeSync(handle)
    const error = await readCassette(file).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error).toBeInstanceOf(CassetteError)
    expect(error?.message).toMatch(/huge\.test\.ts\.json is 600 MB, over the 64 MB a cassette may be/)
    expect(error?.message).toMatch(/delete it to re-record its verdicts/)
    expect(error?.message).not.toMatch(/Invalid string length|permissions/)
  })

  it('control: a cassette under the limit is read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cassette-small-'))
    const file = join(dir, 'small.test.ts.json')
    writeFileSync(file, serializeCassette({ version: 2, entries: {} }))
    expect((await readCassette(file)).entries).toEqual({})
  })
})
