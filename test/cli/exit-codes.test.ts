// The one exit-code table of docs/cli.md, checked for every command: 0 success, 1 findings or a failed gate,
// 2 a usage or input error, 3 the judge gave no verdict. In-process through `main` where the command can run
// to its end that way; `receive` and `fake-judge` serve until stopped, so they are stopped by their signal.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { fakeJudgeCommand } from '../../src/cli/fake-judge'
import { main } from '../../src/cli/main'
import { receiveCommand } from '../../src/cli/receive'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { TRAIL_DIR } from '../bench/trail-dir'
import { startLoopingServer, warmLoopingServer, type LoopingServer } from '../helpers/looping-llm-server'
import { FIXTURE_DIR } from '../helpers/trail'

/** The table of docs/cli.md. */
const EXIT = { ok: 0, findings: 1, usage: 2, unjudgeable: 3 } as const

const repo = fileURLToPath(new URL('../..', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'av-exit-codes-'))
const REPORTS = join(repo, 'test/fixtures/diff')
// A TRAIL run with its "It seems …" admissions reworded: no detector flags it (as in diagnose-judge.test.ts).
const CLEAN = join(tmp, 'clean.json')
writeFileSync(
  CLEAN,
  readFileSync(join(FIXTURE_DIR, '72822db6e120878d916b515c2501246b.json'), 'utf8').replaceAll('It seems', 'I think'),
)
const CASES = join(tmp, 'cases.json')
writeFileSync(
  CASES,
  JSON.stringify({
    cases: [1, 2].map((i) => ({
      id: `c${i}`,
      instruction: 'Q?',
      reference: 'A',
      response: 'A',
      labels: { correctness: 1 },
    })),
  }),
)

function sink() {
  let text = ''
  return { stream: { write: (chunk: string) => ((text += chunk), true) }, text: () => text }
}

async function cli(...argv: string[]) {
  const out = sink()
  const err = sink()
  const code = await main(argv, { stdout: out.stream, stderr: err.stream })
  return { code, stdout: out.text(), stderr: err.text() }
}

let fake: FakeJudge
let looping: LoopingServer
beforeAll(async () => {
  await warmLoopingServer()
  fake = await startFakeJudge()
  looping = await startLoopingServer({ nCtx: 32_768 })
  await import('openai')
}, 120_000)
afterAll(async () => {
  await fake.close()
  await looping.close()
})

describe('agent-verdict (no command)', () => {
  test.each([
    [[], EXIT.usage, 'Usage: agent-verdict <command>'],
    [['diagnoze'], EXIT.usage, "unknown command 'diagnoze' (did you mean 'diagnose'?)"],
    [['--jdge'], EXIT.usage, "unknown option '--jdge'"],
    [['--help'], EXIT.ok, ''],
    [['--version'], EXIT.ok, ''],
  ])('%j → %i', async (argv, code, message) => {
    const r = await cli(...argv)
    expect(r.code).toBe(code)
    expect(r.stderr).toContain(message)
  })
})

describe('diagnose', { timeout: 60_000 }, () => {
  test('usage error: a misspelt flag is named with the right one, without Node\u2019s text', async () => {
    const r = await cli('diagnose', CLEAN, '--fromat', 'json')
    expect(r.code).toBe(EXIT.usage)
    expect(r.stderr).toContain('unknown option --fromat (did you mean --format?)')
    expect(r.stderr).not.toContain('To specify a positional argument')
    // The hint is the one for this error: where the usage is, not the whole usage text.
    expect(r.stderr).not.toContain('--policy')
  })
  test('input error: a path that matches nothing', async () => {
    expect((await cli('diagnose', join(tmp, 'missing.json'))).code).toBe(EXIT.usage)
  })
  test('input error: a misspelt judge option is named as written, with the right one', async () => {
    const r = await cli('diagnose', CLEAN, '--judge', `openai-compatible:${fake.baseURL}#fake;concurency=2`)
    expect(r.code).toBe(EXIT.usage)
    expect(r.stderr).toContain('unknown option "concurency" (did you mean concurrency?)')
  })
  test('success: no findings', async () => {
    expect((await cli('diagnose', CLEAN)).code).toBe(EXIT.ok)
  })
  test('findings', async () => {
    expect((await cli('diagnose', join(repo, 'examples/traces'))).code).toBe(EXIT.findings)
  })
  test('unjudgeable: a looping local judge gave no verdict', async () => {
    const r = await cli(
      'diagnose',
      CLEAN,
      '--judge',
      `openai-compatible:${looping.baseURL}#looper;retry=5s`,
      '--no-agent',
    )
    expect(r.code).toBe(EXIT.unjudgeable)
  }, 60_000)
})

describe('report', () => {
  const base = join(REPORTS, 'base-report.json')
  const head = join(REPORTS, 'head-report.json')
  test.each([
    [['report', 'gaet', base], EXIT.usage, 'unknown subcommand "gaet" (did you mean "gate"?)'],
    [['report', 'gate', base, '--min-pas-rate', '0.5'], EXIT.usage, 'did you mean --min-pass-rate?'],
    [['report', 'html', join(tmp, 'nope.json'), '--out', join(tmp, 'r.html')], EXIT.usage, 'report html'],
    [['report', 'gate', base, '--min-pass-rate', '0'], EXIT.ok, ''],
    [['report', 'gate', head, '--min-pass-rate', '1'], EXIT.findings, 'gates broken'],
    [['report', 'diff', base, head, '--fail-on', 'regression'], EXIT.findings, ''],
    [['report', 'diff', base, head], EXIT.ok, ''],
  ])('%j → %i', async (argv, code, message) => {
    const r = await cli(...argv)
    expect(r.code).toBe(code)
    expect(r.stderr + r.stdout).toContain(message)
  })
})

describe('calibrate', { timeout: 60_000 }, () => {
  test.each([
    [['calibrate', CASES, '--metirc', 'correctness'], EXIT.usage, 'did you mean --metric?'],
    [['calibrate', join(tmp, 'nope.json'), '--judge', 'openai:gpt-4.1'], EXIT.usage, 'nope.json'],
  ])('%j → %i', async (argv, code, message) => {
    const r = await cli(...argv)
    expect(r.code).toBe(code)
    expect(r.stderr).toContain(message)
  })
  test('success: every case judged', async () => {
    const cassette = join(tmp, 'ok-cassette.json')
    const r = await cli(
      'calibrate',
      CASES,
      '--judge',
      `openai-compatible:${fake.baseURL}#fake`,
      '--mode',
      'live',
      '--cassette',
      cassette,
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(EXIT.ok)
  })
  test('unjudgeable: nothing judged', async () => {
    const cassette = join(tmp, 'loop-cassette.json')
    const r = await cli(
      'calibrate',
      CASES,
      '--judge',
      `openai-compatible:${looping.baseURL}#looper;retry=5s`,
      '--mode',
      'live',
      '--cassette',
      cassette,
    )
    expect(r.code).toBe(EXIT.unjudgeable)
    expect(r.stderr).toContain('no case was judged')
  })
})

describe('bench', () => {
  test.each([
    [['bench'], EXIT.usage, 'Usage:'],
    [['bench', 'trial'], EXIT.usage, 'unknown benchmark "trial"'],
    [['bench', 'trail', 'score', TRAIL_DIR, join(tmp, 'nope')], EXIT.usage, 'is not a folder'],
    [
      ['bench', 'trail', 'score', TRAIL_DIR, join(TRAIL_DIR, 'conformance/predictions/gold_exact'), '--jsno', 'x'],
      EXIT.usage,
      'did you mean --json?',
    ],
  ])('%j → %i', async (argv, code, message) => {
    const r = await cli(...argv)
    expect(r.code).toBe(code)
    expect(r.stderr).toContain(message)
  })
  // bench writes to process.stdout itself: its success is checked in bench.test.ts (score → 0).
})

describe('batch and record', () => {
  const env = { AGENT_VERDICT_BATCH_DIR: join(tmp, 'batch') }
  test.each([
    [['batch', 'sumbit'], EXIT.usage, 'unknown subcommand "sumbit" (did you mean "submit"?)'],
    [['batch', 'wait', '--pol-seconds', '1'], EXIT.usage, 'did you mean --poll-seconds?'],
    [['batch', 'wait', '--dir', join(tmp, 'empty')], EXIT.usage, 'no submitted batch'],
    [['record', '--', 'true'], EXIT.usage, 'only --batch is supported'],
  ])('%j → %i', async (argv, code, message) => {
    const before = process.env.AGENT_VERDICT_BATCH_DIR
    process.env.AGENT_VERDICT_BATCH_DIR = env.AGENT_VERDICT_BATCH_DIR
    try {
      const r = await cli(...argv)
      expect(r.code).toBe(code)
      expect(r.stderr).toContain(message)
    } finally {
      if (before === undefined) delete process.env.AGENT_VERDICT_BATCH_DIR
      else process.env.AGENT_VERDICT_BATCH_DIR = before
    }
  })
  // record passes on the test command's own code: 0 when the tests pass, 1 when they fail (nothing queued here).
  test.each([
    ['true', EXIT.ok],
    ['false', EXIT.findings],
  ])('record --batch -- %s → %i', async (command, code) => {
    const before = process.env.AGENT_VERDICT_BATCH_DIR
    process.env.AGENT_VERDICT_BATCH_DIR = join(tmp, `record-${command}`)
    try {
      expect((await cli('record', '--batch', '--', command)).code).toBe(code)
    } finally {
      if (before === undefined) delete process.env.AGENT_VERDICT_BATCH_DIR
      else process.env.AGENT_VERDICT_BATCH_DIR = before
    }
  })
})

/** A port something already listens on. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as AddressInfo).port, server }
}

describe.each([
  ['receive', receiveCommand],
  ['fake-judge', fakeJudgeCommand],
] as const)('%s', (name, command) => {
  test('usage error', async () => {
    const r = await cli(name, '--prot', '0')
    expect(r.code).toBe(EXIT.usage)
    expect(r.stderr).toContain('unknown option --prot (did you mean --port?)')
  })
  test('input error: a taken port', async () => {
    const { port, server } = await takenPort()
    try {
      expect(await command(['--port', String(port)], { stdout: sink().stream, stderr: sink().stream })).toBe(EXIT.usage)
    } finally {
      server.close()
    }
  })
  test('success: serves until stopped', async () => {
    const stop = new AbortController()
    // Stopped as soon as it prints its URL: it listened.
    const stdout = { write: () => (stop.abort(), true) }
    expect(await command(['--port', '0'], { stdout, stderr: sink().stream, signal: stop.signal })).toBe(EXIT.ok)
  })
})
