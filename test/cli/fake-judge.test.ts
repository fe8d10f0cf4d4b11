import { spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, expect, test } from 'vitest'
import { fakeJudgeCommand } from '../../src/cli/fake-judge'

/** Collects what the command writes, and resolves once a line is written. */
function sink() {
  let text = ''
  let onLine: (() => void) | undefined
  const firstLine = new Promise<string>((resolve) => (onLine = () => resolve(text.split('\n')[0])))
  return {
    write(chunk: string) {
      text += chunk
      if (text.includes('\n')) onLine?.()
      return true
    },
    get text() {
      return text
    },
    firstLine,
  }
}

async function writeJson(name: string, value: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-judge-cli-'))
  const path = join(dir, name)
  await writeFile(path, JSON.stringify(value))
  return path
}

describe('agent-verdict fake-judge (in-process)', () => {
  test('prints the base URL, serves the rules file, stops cleanly on abort with exit 0', async () => {
    const rules = await writeJson('rules.json', [
      { when: { contains: 'EMEA' }, respond: { verdict: 'fail', reason: 'wrong region' } },
    ])
    const stdout = sink()
    const stderr = sink()
    const stop = new AbortController()
    const exit = fakeJudgeCommand(['--port', '0', '--rules', rules, '--latency', '5', '--model', 'judge-x'], {
      signal: stop.signal,
      stdout,
      stderr,
    })
    const baseURL = await stdout.firstLine
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(stderr.text).toContain(`AGENT_VERDICT_JUDGE=openai-compatible:${baseURL}#judge-x`)

    const models = (await (await fetch(`${baseURL}/models`)).json()) as { data: { id: string }[] }
    expect(models.data.map((m) => m.id)).toEqual(['judge-x'])
    const completion = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'judge-x',
        messages: [{ role: 'user', content: 'EMEA' }],
        response_format: { type: 'json_object' },
      }),
    })
    const body = (await completion.json()) as { choices: { message: { content: string } }[] }
    expect(JSON.parse(body.choices[0].message.content)).toEqual({ reasoning: 'wrong region', score: 0 })

    stop.abort()
    expect(await exit).toBe(0)
    expect(stderr.text).toContain('fake judge stopped (abort) after 2 requests')
    await expect(fetch(`${baseURL}/models`)).rejects.toThrow()
  })

  test('a bad rules file exits 2 and names the zod issue path', async () => {
    const rules = await writeJson('bad.json', { rules: [{ when: { regex: '[unclosed' }, respond: {} }] })
    const stderr = sink()
    expect(await fakeJudgeCommand(['--rules', rules], { stderr, stdout: sink() })).toBe(2)
    expect(stderr.text).toMatch(/rules\[0\]\.when\.regex: is not a valid JavaScript regular expression/)
  })

  test('bad arguments exit 2 with usage; --help exits 0', async () => {
    const stderr = sink()
    expect(await fakeJudgeCommand(['--latency', 'soon'], { stderr, stdout: sink() })).toBe(2)
    expect(stderr.text).toContain("--latency must be milliseconds (100) or a range (50-150), got 'soon'")
    expect(await fakeJudgeCommand(['--bogus'], { stderr: sink(), stdout: sink() })).toBe(2)
    const help = sink()
    expect(await fakeJudgeCommand(['--help'], { stdout: help, stderr: sink() })).toBe(0)
    expect(help.text).toContain('usage: agent-verdict fake-judge')
  })
})

describe('agent-verdict fake-judge (spawned process)', () => {
  test('through the dispatcher: prints the URL as the first stdout line and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/cli/run-cli.ts', 'fake-judge', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    try {
      const [line] = await Promise.race([
        new Promise<string[]>((resolve) => createInterface({ input: child.stdout }).once('line', (l) => resolve([l]))),
        exited.then((code) => [`exited early with ${code}: ${stderr}`]),
      ])
      expect(line).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
      const notFound = await fetch(`${line.replace(/\/v1$/, '')}/nope`)
      expect(notFound.status).toBe(404)
      expect(await notFound.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'unknown_url' } })
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(stderr).toContain('fake judge stopped (SIGTERM)')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
