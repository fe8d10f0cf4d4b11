import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test, vi } from 'vitest'
import { benchCommand } from '../../src/cli/bench'
import { TRAIL_DIR } from '../bench/trail-dir'

const tmp = mkdtempSync(join(tmpdir(), 'bench-cli-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const PREDICTIONS = join(TRAIL_DIR, 'conformance/predictions')

/** Runs the command with stdout/stderr captured. */
async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true))
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true))
  try {
    return { code: await benchCommand(argv), out, err }
  } finally {
    o.mockRestore()
    e.mockRestore()
  }
}

test('score: a TRAIL folder against a predictions folder scores both splits and writes the --json summary', async () => {
  const json = join(tmp, 'gold_exact.json')
  const r = await run('trail', 'score', TRAIL_DIR, join(PREDICTIONS, 'gold_exact'), '--json', json)
  expect(r.code).toBe(0)
  expect(r.out).toContain('TRAIL GAIA')
  expect(r.out).toMatch(/location accuracy\s+0\.9750/)
  const summary = JSON.parse(readFileSync(json, 'utf8'))
  expect(Object.keys(summary)).toEqual(['GAIA', 'SWE_Bench'])
  expect(Object.keys(summary.GAIA).sort()).toEqual(
    [
      'files_processed',
      'joint_accuracy',
      'localization_f1',
      'localization_precision',
      'location_accuracy',
      'weighted_f1',
      'pair_precision',
      'pair_recall',
      'top1_joint_accuracy',
      'predictions_per_trace',
    ].sort(),
  )
  expect(summary.GAIA).toMatchObject({
    files_processed: 80,
    location_accuracy: 0.975,
    weighted_f1: 1,
    localization_precision: 1,
  })
  expect(summary.SWE_Bench.files_processed).toBe(18)
})

test('score: one split folder against one gold folder, the split taken from the names', async () => {
  const json = join(tmp, 'silent.json')
  const r = await run(
    'trail',
    'score',
    join(TRAIL_DIR, 'annotations_swe_bench'),
    join(PREDICTIONS, 'silent/SWE_Bench'),
    '--json',
    json,
  )
  expect(r.code).toBe(0)
  expect(JSON.parse(readFileSync(json, 'utf8'))).toEqual({
    SWE_Bench: {
      location_accuracy: 0,
      joint_accuracy: 0,
      weighted_f1: 0,
      localization_precision: 0,
      localization_f1: 0,
      pair_precision: 0,
      pair_recall: 0,
      top1_joint_accuracy: 0,
      predictions_per_trace: 0,
      files_processed: 18,
    },
  })
})

test('score: --split limits a two-split predictions folder to one split', async () => {
  const json = join(tmp, 'swe-only.json')
  expect(
    (await run('trail', 'score', TRAIL_DIR, join(PREDICTIONS, 'first_half'), '--split', 'swe', '--json', json)).code,
  ).toBe(0)
  expect(Object.keys(JSON.parse(readFileSync(json, 'utf8')))).toEqual(['SWE_Bench'])
})

test('score: nothing matching the gold names is reported on stderr', async () => {
  const r = await run('trail', 'score', TRAIL_DIR, join(TRAIL_DIR, 'conformance'), '--split', 'gaia')
  expect(r.code).toBe(0)
  expect(r.err).toMatch(/GAIA: nothing scored — no file in .* has the name of a gold file/)
})

test.each([
  [['trail', 'score', TRAIL_DIR, join(tmp, 'nope')], /predictions folder .* is not a folder/],
  [['trail', 'score', TRAIL_DIR], /missing predictions folder/],
  [['trail', 'score', TRAIL_DIR, PREDICTIONS, '--split', 'all'], /--split must be gaia, swe or both/],
  [['trail', 'score', TRAIL_DIR, join(PREDICTIONS, 'silent'), '--mode', 'judge'], /--mode does not apply here/],
  [['trail', join(tmp, 'nope')], /TRAIL folder .* is not a folder/],
  [['trail', TRAIL_DIR, '--mode', 'judge'], /mode judge needs a judge: /],
  [['trail', TRAIL_DIR, '--mode', 'monolithic'], /mode monolithic needs a judge: /],
  [['trail', TRAIL_DIR, '--mode', 'fast'], /--mode must be deterministic, judge, monolithic or oracle/],
  [['trail', TRAIL_DIR, '--profile', 'max'], /--profile must be default or trail-recall/],
  [
    ['trail', TRAIL_DIR, '--mode', 'judge', '--profile', 'trail-recall'],
    /--profile applies to --mode deterministic only/,
  ],
  [['swe-bench'], /unknown benchmark "swe-bench"/],
  [[], /Usage:/],
])('exit 2 with a clear message: %j', async (argv, message) => {
  const r = await run(...argv)
  expect(r.code).toBe(2)
  expect(r.err + r.out).toMatch(message)
})

test('run: deterministic mode over a small TRAIL folder writes predictions and the summary', async () => {
  const dir = join(tmp, 'trail')
  mkdirSync(join(dir, 'GAIA'), { recursive: true })
  mkdirSync(join(dir, 'annotations_gaia'), { recursive: true })
  const ids = ['0ebe673d64647ec44c370638b82d3c78', 'f39aec9b8a61fd2aaed5849cc00bc165']
  for (const id of ids) {
    copyFileSync(join(TRAIL_DIR, 'GAIA', `${id}.json`), join(dir, 'GAIA', `${id}.json`))
    copyFileSync(join(TRAIL_DIR, 'annotations_gaia', `${id}.json`), join(dir, 'annotations_gaia', `${id}.json`))
  }
  const out = join(tmp, 'predictions')
  const json = join(tmp, 'run.json')
  const r = await run('trail', dir, '--out', out, '--json', json)
  expect(r.code).toBe(0)
  expect(readdirSync(join(out, 'GAIA')).sort()).toEqual(ids.map((id) => `${id}.json`))
  expect(existsSync(join(out, 'SWE_Bench'))).toBe(false)
  expect(r.out).toContain(`2 written to ${join(out, 'GAIA')}`)
  const summary = JSON.parse(readFileSync(json, 'utf8'))
  expect(Object.keys(summary)).toEqual(['GAIA'])
  expect(summary.GAIA.files_processed).toBe(2)
})

test('run: --profile trail-recall adds the second guesses (more predictions, same spans); the default names one category per evidence', async () => {
  const dir = join(tmp, 'trail-profile')
  mkdirSync(join(dir, 'GAIA'), { recursive: true })
  mkdirSync(join(dir, 'annotations_gaia'), { recursive: true })
  // f39aec9b answers before any lookup its survey asked for: Goal Deviation (+ Tool Selection Errors under trail-recall).
  const id = 'f39aec9b8a61fd2aaed5849cc00bc165'
  copyFileSync(join(TRAIL_DIR, 'GAIA', `${id}.json`), join(dir, 'GAIA', `${id}.json`))
  copyFileSync(join(TRAIL_DIR, 'annotations_gaia', `${id}.json`), join(dir, 'annotations_gaia', `${id}.json`))
  const categories = (out: string) =>
    JSON.parse(readFileSync(join(out, 'GAIA', `${id}.json`), 'utf8')).errors.map(
      (e: { category: string }) => e.category,
    )
  const plain = join(tmp, 'profile-default')
  const recall = join(tmp, 'profile-recall')
  expect((await run('trail', dir, '--out', plain)).code).toBe(0)
  expect((await run('trail', dir, '--out', recall, '--profile', 'trail-recall')).code).toBe(0)
  expect(categories(plain)).not.toContain('Tool Selection Errors')
  expect(categories(recall)).toContain('Tool Selection Errors')
  expect(categories(recall).length).toBe(categories(plain).length + 1)
})
