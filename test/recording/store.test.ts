// A recording file is rewritten whole on each recorded call; this process keeps the file it last wrote instead of
// re-reading it, and must still see what any other writer (another worker, a person) put there since.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { parseRecording, type RecordedCall, serializeRecording } from '../../src/recording/format'
import { writeAtomic } from '../../src/files/atomic'
import { updateRecording } from '../../src/recording/store'

const dir = mkdtempSync(join(tmpdir(), 'av-rec-store-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const call = (path: string): RecordedCall => ({
  request: { method: 'GET', url: `http://127.0.0.1:1${path}` },
  response: { status: 200, headers: {} },
  durationMs: 1,
})

it("merges with another writer's change made since this process last wrote the file", async () => {
  const file = join(dir, 'a.eval.ts.json')
  await updateRecording(file, (r) => r.tests.push({ test: 'mine', calls: [call('/one')] }))
  // Another worker writes the file between two of ours (atomically, as every writer does), the same size on purpose:
  // only the content differs.
  const theirs = parseRecording(readFileSync(file, 'utf8'), file)
  theirs.tests = [{ test: 'mind', calls: [call('/two')] }]
  await writeAtomic(file, serializeRecording(theirs))
  await updateRecording(file, (r) => r.tests.push({ test: 'mine too', calls: [call('/three')] }))
  const text = readFileSync(file, 'utf8')
  for (const path of ['/two', '/three']) expect(text).toContain(path)
  expect(text).not.toContain('/one')
})

it('keeps its own writes without re-reading, and the copy it keeps is not changed by a later change', async () => {
  const file = join(dir, 'b.eval.ts.json')
  const first = await updateRecording(file, (r) => r.tests.push({ test: 'a', calls: [call('/a')] }))
  await updateRecording(file, (r) => {
    r.tests = r.tests.filter((t) => t.test !== 'a')
    r.tests.push({ test: 'b', calls: [call('/b')] })
  })
  expect(first.tests.map((t) => t.test)).toEqual(['a'])
  const text = readFileSync(file, 'utf8')
  expect(text).toContain('/b')
  expect(text).not.toContain('/a"')
})

it('writes the same bytes as two-space JSON of the file, whatever its strings hold', () => {
  const hostile = 'line\nbreak "quoted" \\ back\u2028sep ünï 😀 </script>'
  const file = {
    version: 1 as const,
    tests: [
      { test: 'z last', calls: [call('/z')] },
      { test: 'empty', calls: [] },
      {
        test: hostile,
        calls: [
          {
            summary: { model: 'm', user: hostile, answer: 'a\n  indented' },
            request: {
              method: 'POST',
              url: 'http://127.0.0.1:1/v1?q=1',
              body: { json: { nested: { list: [1, 'x', null, {}] } } },
            },
            response: { status: 201, statusText: 'Created', headers: { b: '2', a: '1' }, body: { text: '  spaced\n' } },
            durationMs: 12,
          } as RecordedCall,
          call('/second'),
        ],
      },
    ],
  }
  const text = serializeRecording(file)
  expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`)
  expect(serializeRecording(parseRecording(text, 'x.json'))).toBe(text)
  expect(JSON.parse(text).tests.map((t: { test: string }) => t.test)).toEqual([hostile, 'z last'])
  expect(serializeRecording({ version: 1, tests: [] })).toBe(`${JSON.stringify({ version: 1, tests: [] }, null, 2)}\n`)
})
