import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { withCassette } from '../../src/cassette/cassette-judge'
import { CassetteMissError } from '../../src/cassette/errors'
import { cassetteKey } from '../../src/cassette/key'
import { cassettePathFor, readCassette } from '../../src/cassette/store'
import { callJudge } from '../../src/judges/judge-call'
import { JudgeConfigError } from '../../src/judges/errors'
import { loadImage } from '../../src/media/load'
import { toImagePart } from '../../src/media/loaded-image'
import { countingJudge, fixedNow, tempDir, verdictRequest } from './helpers'
import { rejectionOf } from '../helpers/rejection'

const chartPath = new URL('../fixtures/images/revenue-by-region.png', import.meta.url)
const newCassette = () => cassettePathFor(join(tempDir(), 'chart.test.ts'))

const missError = (promise: Promise<unknown>) => rejectionOf(promise, CassetteMissError)

describe('withCassette in auto mode', () => {
  it('records a miss, then replays it in a later run with no judge call', async () => {
    const file = newCassette()
    const request = verdictRequest('Does the answer name North America at $14.10?')
    const first = countingJudge()
    const live = await withCassette(first, { file, mode: 'auto', now: fixedNow }).evaluate(request)
    expect(first.calls).toHaveLength(1)
    expect(live.cached).toBe(false)

    const second = countingJudge()
    const replayed = await withCassette(second, { file, mode: 'auto' }).evaluate(request)
    expect(second.calls).toHaveLength(0)
    // Replay waited for nothing; latency is not kept (it would change the file on every re-record).
    expect(replayed).toEqual({ ...live, cached: true, attempts: 0, latencyMs: 0 })
    const entry = Object.values((await readCassette(file)).entries)[0]
    expect(entry).toMatchObject({
      metric: 'faithfulness',
      provider: 'fake',
      model: 'judge-1',
      promptVersion: 'faithfulness@1',
      recordedAt: '2026-03-18T09:30:00.000Z',
      usage: live.usage,
      costUsd: 0.0005,
    })
    expect(entry).not.toHaveProperty('latencyMs')
  })

  it('writes each verdict as it is recorded, not at the end', async () => {
    const file = newCassette()
    const judge = withCassette(countingJudge(), { file, mode: 'auto' })
    await judge.evaluate(verdictRequest('first'))
    expect(Object.keys((await readCassette(file)).entries)).toHaveLength(1)
    await judge.evaluate(verdictRequest('second'))
    expect(Object.keys((await readCassette(file)).entries)).toHaveLength(2)
  })

  it('treats a changed rubric, model, image byte or prompt version as a miss', async () => {
    const file = newCassette()
    const image = toImagePart(await loadImage(chartPath))
    const request = verdictRequest('Is the answer grounded in the chart?', { images: [image] })
    await withCassette(countingJudge(), { file, mode: 'auto' }).evaluate(request)

    const altered = Buffer.from(readFileSync(chartPath))
    altered[altered.length - 20] ^= 0xff
    const changes = [
      {
        judge: countingJudge(),
        request: verdictRequest('Is the answer grounded in the chart? Be strict.', { images: [image] }),
      },
      { judge: countingJudge({ model: 'judge-2' }), request },
      {
        judge: countingJudge(),
        request: verdictRequest('Is the answer grounded in the chart?', {
          images: [toImagePart(await loadImage(altered))],
        }),
      },
      {
        judge: countingJudge(),
        request: verdictRequest('Is the answer grounded in the chart?', {
          images: [image],
          promptVersion: 'faithfulness@2',
        }),
      },
    ]
    const unchanged = countingJudge()
    await withCassette(unchanged, { file, mode: 'auto' }).evaluate(request)
    expect(unchanged.calls).toHaveLength(0)
    for (const { judge, request: changed } of changes) {
      await withCassette(judge, { file, mode: 'auto' }).evaluate(changed)
      expect(judge.calls).toHaveLength(1)
    }
    expect(Object.keys((await readCassette(file)).entries)).toHaveLength(5)
  })

  it('re-judges a recorded output that no longer fits the schema', async () => {
    const file = newCassette()
    const request = verdictRequest('rate it')
    await withCassette(countingJudge(), { file, mode: 'auto' }).evaluate(request)
    const text = readFileSync(file, 'utf8').replace(/"score":\d/, '"score": "high"')
    writeFileSync(file, text)
    const judge = countingJudge()
    const reply = await withCassette(judge, { file, mode: 'auto' }).evaluate(request)
    expect(judge.calls).toHaveLength(1)
    expect(reply.cached).toBe(false)
    expect(readFileSync(file, 'utf8')).not.toContain('"high"')
  })
})

describe('withCassette in replay mode (CI)', () => {
  it('fails a miss with how to record it, and never calls the judge', async () => {
    const file = newCassette()
    const judge = countingJudge()
    const err = await missError(
      withCassette(judge, { file, env: { CI: 'true' } }).evaluate(
        verdictRequest('never recorded', { metric: 'correctness' }),
      ),
    )
    // The judge is configured (CI is why it is not called), so the message must not ask to configure one.
    expect(err.message).toMatch(
      /^no recorded verdict for correctness in \S+chart\.test\.ts\.json — CI is set, so verdicts are replayed only and the judge \(fake:judge-1\) is not called: run the tests locally without CI to record it and commit \S+chart\.test\.ts\.json, or set AGENT_VERDICT_MODE=record to judge it in this run$/,
    )
    expect(err.message).not.toContain('AGENT_VERDICT_JUDGE')
    expect(err).toBeInstanceOf(JudgeConfigError)
    expect(err).toMatchObject({ reason: 'missing', metric: 'correctness', file, retryable: false })
    expect(judge.calls).toHaveLength(0)
    expect(existsSync(file)).toBe(false)
  })

  it("a verdict recorded under an older prompt version is refused with why, not replayed as the new prompt's", async () => {
    const file = newCassette()
    await withCassette(countingJudge(), { file, mode: 'auto' }).evaluate(
      verdictRequest('rate it', { metric: 'span-diagnosis', promptVersion: 'span-diagnosis@2' }),
    )
    const judge = countingJudge()
    const err = await missError(
      withCassette(judge, { file, env: { CI: 'true' } }).evaluate(
        verdictRequest('rate it', { metric: 'span-diagnosis', promptVersion: 'span-diagnosis@3' }),
      ),
    )
    expect(err.message).toContain('no recorded verdict for span-diagnosis in ')
    expect(err.message).toContain(
      '(its span-diagnosis verdicts were recorded with prompt span-diagnosis@2, not span-diagnosis@3: the prompt or its reply changed since, so they are not reused) — CI is set',
    )
    expect(judge.calls).toHaveLength(0)
    // Another metric's entries say nothing about this one: a plain miss.
    const other = await missError(
      withCassette(countingJudge(), { file, env: { CI: 'true' } }).evaluate(
        verdictRequest('rate it', { metric: 'correctness', promptVersion: 'correctness@1' }),
      ),
    )
    expect(other.message).not.toContain('recorded with prompt')
  })

  it('says why replay is on: AGENT_VERDICT_MODE=replay, or the mode option', async () => {
    const request = verdictRequest('never recorded', { metric: 'correctness' })
    const fromEnv = await missError(
      withCassette(countingJudge(), { file: newCassette(), env: { AGENT_VERDICT_MODE: 'replay' } }).evaluate(request),
    )
    expect(fromEnv.message).toMatch(
      / — AGENT_VERDICT_MODE=replay replays recorded verdicts only and does not call the judge \(fake:judge-1\): unset it \(or set AGENT_VERDICT_MODE=record\) to record it$/,
    )
    // AGENT_VERDICT_MODE wins over CI, so it is the one named.
    const both = await missError(
      withCassette(countingJudge(), {
        file: newCassette(),
        env: { CI: 'true', AGENT_VERDICT_MODE: 'replay' },
      }).evaluate(request),
    )
    expect(both.message).toContain('AGENT_VERDICT_MODE=replay replays')
    const fromOption = await missError(
      withCassette(countingJudge(), { file: newCassette(), mode: 'replay', env: { CI: 'true' } }).evaluate(request),
    )
    expect(fromOption.message).toMatch(
      / — the cassette mode is replay, which does not call the judge \(fake:judge-1\): use mode auto or record to record it$/,
    )
    expect(fromOption.message).not.toContain('CI is set')
  })

  it('says how to configure a judge when the error is built without one', () => {
    const err = new CassetteMissError({
      metric: 'correctness',
      file: '/x/a.test.ts.json',
      key: 'k',
      provider: 'fake',
      model: 'm',
      reason: 'missing',
    })
    expect(err.message).toMatch(
      / — configure a judge \(below\) and run the tests locally to record it\nSet AGENT_VERDICT_JUDGE to one of:\n {2}AGENT_VERDICT_JUDGE=openai:MODEL/,
    )
  })

  it('is not retried or turned into an unjudgeable verdict by callJudge', async () => {
    const judge = countingJudge()
    const cassette = withCassette(judge, { file: newCassette(), mode: 'replay' })
    await missError(callJudge(cassette, verdictRequest('never recorded'), { samples: 3 }))
    expect(judge.calls).toHaveLength(0)
  })

  it('replays hits and reports a stale entry as an error', async () => {
    const file = newCassette()
    const request = verdictRequest('rate it')
    await withCassette(countingJudge(), { file, mode: 'auto' }).evaluate(request)
    const judge = countingJudge()
    expect((await withCassette(judge, { file, mode: 'replay' }).evaluate(request)).cached).toBe(true)
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"score":\d/, '"score": 9'))
    const err = await missError(withCassette(judge, { file, mode: 'replay' }).evaluate(request))
    expect(err.reason).toBe('stale')
    expect(err.message).toContain('no longer fits its output schema (score:')
    expect(judge.calls).toHaveLength(0)
  })

  it('records misses when updating (vitest -u), even in CI', async () => {
    const file = newCassette()
    const judge = countingJudge()
    const cassette = withCassette(judge, { file, env: { CI: 'true', AGENT_VERDICT_UPDATE: '1' } })
    expect(cassette).toMatchObject({ mode: 'replay', update: true })
    await cassette.evaluate(verdictRequest('new case'))
    expect(judge.calls).toHaveLength(1)
    expect(Object.keys((await readCassette(file)).entries)).toHaveLength(1)
  })
})

describe('withCassette in record and live modes', () => {
  it('record re-judges and overwrites recorded verdicts, once per run', async () => {
    const file = newCassette()
    const request = verdictRequest('rate it')
    await withCassette(countingJudge({ scores: [2] }), { file, mode: 'auto', now: fixedNow }).evaluate(request)
    const judge = countingJudge({ scores: [5] })
    const cassette = withCassette(judge, { file, mode: 'record', now: () => new Date('2026-04-01T00:00:00.000Z') })
    expect((await cassette.evaluate(request)).output.score).toBe(5)
    expect(judge.calls).toHaveLength(1)
    const [entry] = Object.values((await readCassette(file)).entries)
    expect(entry).toMatchObject({ recordedAt: '2026-04-01T00:00:00.000Z', output: { score: 5 } })
  })

  it('live calls the judge every time and touches no file', async () => {
    const file = newCassette()
    const judge = countingJudge()
    const cassette = withCassette(judge, { file, env: { AGENT_VERDICT_MODE: 'live' } })
    await cassette.evaluate(verdictRequest('a'))
    await cassette.evaluate(verdictRequest('a'))
    expect(judge.calls).toHaveLength(2)
    expect(existsSync(file)).toBe(false)
    expect(await cassette.prune()).toEqual([])
  })
})

describe('self-consistency samples', () => {
  it('records each sample of a repeated request and replays all of them', async () => {
    const file = newCassette()
    const request = verdictRequest('rate it')
    const recording = countingJudge({ scores: [4, 2, 4] })
    const first = await callJudge(withCassette(recording, { file, mode: 'auto' }), request, { samples: 3 })
    expect(recording.calls).toHaveLength(3)
    expect(Object.keys((await readCassette(file)).entries)).toHaveLength(3)

    const replaying = countingJudge()
    const second = await callJudge(withCassette(replaying, { file, mode: 'replay' }), request, { samples: 3 })
    expect(replaying.calls).toHaveLength(0)
    if (first.status !== 'ok' || second.status !== 'ok') throw new Error('expected verdicts')
    expect([...(second.samples ?? [])].sort()).toEqual([...(first.samples ?? [])].sort())
    expect(second.disagreement).toBe(true)
  })
})

describe('stable files', () => {
  it('gives byte-identical files whatever order the verdicts were recorded in', async () => {
    const requests = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'].map((r) => verdictRequest(r))
    const a = newCassette()
    const b = newCassette()
    const forward = withCassette(countingJudge(), { file: a, mode: 'auto', now: fixedNow })
    for (const r of requests) await forward.evaluate(r)
    const backward = withCassette(countingJudge(), { file: b, mode: 'auto', now: fixedNow })
    await Promise.all([...requests].reverse().map((r) => backward.evaluate(r)))
    const text = readFileSync(a, 'utf8')
    expect(readFileSync(b, 'utf8')).toBe(text)
    const keys = (JSON.parse(text) as { entries: Array<{ key: string }> }).entries.map((e) => e.key)
    expect(keys).toEqual([...keys].sort())
    expect(text.startsWith('{\n  "version": 2,\n  "entries": [\n')).toBe(true)
    expect(text.endsWith('}\n')).toBe(true)
  })
})

describe('obsolete entries', () => {
  it('lists keys not used in this run and prunes them on update', async () => {
    const file = newCassette()
    const [a, b, c] = ['a', 'b', 'c'].map((r) => verdictRequest(r))
    const recording = withCassette(countingJudge(), { file, mode: 'auto' })
    for (const r of [a, b, c]) await recording.evaluate(r)

    const judge = countingJudge()
    const update = withCassette(judge, { file, mode: 'replay', update: true })
    await update.evaluate(a)
    await update.evaluate(b)
    const obsolete = [cassetteKey(judge, c)]
    expect(await update.obsoleteKeys()).toEqual(obsolete)
    expect(await update.prune()).toEqual(obsolete)
    expect(Object.keys((await readCassette(file)).entries).sort()).toEqual(
      [cassetteKey(judge, a), cassetteKey(judge, b)].sort(),
    )
    expect(await update.prune()).toEqual([])
    expect(judge.calls).toHaveLength(0)

    const replay = withCassette(countingJudge(), { file, mode: 'replay' })
    expect((await replay.evaluate(a)).cached).toBe(true)
    await missError(replay.evaluate(c))
  })

  it('does not count entries written by other workers as used', async () => {
    const file = newCassette()
    const mine = withCassette(countingJudge(), { file, mode: 'auto' })
    const theirs = withCassette(countingJudge(), { file, mode: 'auto' })
    await mine.evaluate(verdictRequest('mine'))
    await theirs.evaluate(verdictRequest('theirs'))
    expect(await mine.obsoleteKeys()).toEqual([cassetteKey(countingJudge(), verdictRequest('theirs'))])
    expect(mine.stats).toEqual({ replayed: 0, recorded: 1 })
  })
})
