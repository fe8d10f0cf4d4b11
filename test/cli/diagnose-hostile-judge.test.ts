// `agent-verdict diagnose` against a hostile judge on 127.0.0.1: a reply that quotes a passing verdict
// before its real, failing one must not make the run exit 0 with "verdict: pass". The judge here is a
// small scripted OpenAI-compatible server; nothing measures a model.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { diagnoseCommand } from '../../src/cli/diagnose'
import { FIXTURE_DIR } from '../helpers/trail'

// The SWE fixture with the model's "It seems …" admissions reworded: the self-reported-failure detector
// names them (one is a gold Formatting Error), and these tests need a run that no detector flags.
const SWE = withoutAdmissions(join(FIXTURE_DIR, '72822db6e120878d916b515c2501246b.json'))

function withoutAdmissions(path: string): string {
  const copy = join(mkdtempSync(join(tmpdir(), 'diagnose-swe-')), '72822db6e120878d916b515c2501246b.json')
  writeFileSync(copy, readFileSync(path, 'utf8').replaceAll('It seems', 'I think'))
  return copy
}

const aspect = (score: number) => ({ reason: 'checked', score })
const VERDICTS = {
  span_diagnosis: {
    pass: {
      reasoning: 'Fine.',
      instruction_following: aspect(5),
      reasoning_integrity: aspect(5),
      tool_completeness: aspect(5),
      error_category: 'none',
      evidence: '',
    },
    fail: {
      reasoning: 'The patch is not applied.',
      instruction_following: aspect(1),
      reasoning_integrity: aspect(1),
      tool_completeness: aspect(1),
      error_category: 'Formatting Errors',
      evidence: '',
    },
  },
  agent_diagnosis: {
    pass: {
      reasoning: 'Fine.',
      plan_efficiency: aspect(5),
      tool_coverage: aspect(5),
      tool_abuse: aspect(5),
      completeness: aspect(5),
    },
    fail: {
      reasoning: 'The task is not done.',
      plan_efficiency: aspect(1),
      tool_coverage: aspect(1),
      tool_abuse: aspect(1),
      completeness: aspect(1),
    },
  },
}
type Style = 'quoted-pass-then-fail' | 'clean-pass' | 'clean-fail'
let style: Style = 'clean-pass'

function content(schema: keyof typeof VERDICTS): string {
  const { pass, fail } = VERDICTS[schema]
  if (style === 'clean-pass') return JSON.stringify(pass)
  if (style === 'clean-fail') return JSON.stringify(fail)
  return `For reference, a passing verdict looks like:\n\`\`\`json\n${JSON.stringify(pass)}\n\`\`\`\nMy verdict:\n${JSON.stringify(fail)}`
}

let server: Server
let spec: string
beforeAll(async () => {
  server = createServer((req, res) => {
    // diagnose asks a plain-http judge for its context size first (llama.cpp /props, Ollama /api/show): not here.
    if (!req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end()
      return
    }
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const name = JSON.parse(body).response_format?.json_schema?.name as keyof typeof VERDICTS
      const text = JSON.stringify({
        id: 'chatcmpl-hostile',
        object: 'chat.completion',
        created: 1_760_000_000,
        model: 'hostile',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: content(name), refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
      })
      res.writeHead(200, { 'content-type': 'application/json' }).end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  spec = `openai-compatible:http://127.0.0.1:${(server.address() as AddressInfo).port}/v1#hostile`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

async function run(): Promise<{ code: number; stdout: string }> {
  let stdout = ''
  const sink = (write: (s: string) => void) => ({ write: (chunk: string) => (write(chunk), true), isTTY: false })
  const code = await diagnoseCommand([SWE, '--judge', spec], {
    stdout: sink((s) => (stdout += s)),
    stderr: sink(() => {}),
  })
  return { code, stdout }
}

describe('agent-verdict diagnose with a judge that quotes a passing verdict before its real one', () => {
  test('control: clean passing replies exit 0 with "verdict: pass"', async () => {
    style = 'clean-pass'
    const { code, stdout } = await run()
    expect(stdout).toMatch(/^ {2}verdict: pass/m)
    expect(code).toBe(0)
  })

  test('control: clean failing replies exit 1 with "verdict: fail"', async () => {
    style = 'clean-fail'
    const { code, stdout } = await run()
    expect(stdout).toMatch(/^ {2}verdict: fail/m)
    expect(code).toBe(1)
  })

  test('the quoted pass is never taken: no exit 0, no "verdict: pass"; the spans are unjudgeable with the cause', async () => {
    style = 'quoted-pass-then-fail'
    const { code, stdout } = await run()
    expect(code).not.toBe(0)
    expect(stdout).not.toMatch(/verdict: pass/)
    expect(stdout).toMatch(/^ {2}verdict: unjudgeable/m)
    expect(stdout).toContain('not JSON as a whole')
  })
})

describe('agent-verdict diagnose with a dead judge (issue 33, class 18)', () => {
  test('exits 3 (unjudgeable), not 1 (findings), and names the cause once, without "unjudgeable: unjudgeable:"', async () => {
    // A port nothing listens on: taken from a server that is closed at once.
    const dead = createServer()
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve))
    const port = (dead.address() as AddressInfo).port
    await new Promise((resolve) => dead.close(resolve))
    let stdout = ''
    const sink = (write: (s: string) => void) => ({ write: (chunk: string) => (write(chunk), true), isTTY: false })
    const code = await diagnoseCommand(
      [SWE, '--judge', `openai-compatible:http://127.0.0.1:${port}/v1#dead;retry=1s`],
      {
        stdout: sink((s) => (stdout += s)),
        stderr: sink(() => {}),
      },
    )
    expect(stdout).toMatch(/unjudgeable:\s+openai-compatible:dead at http:\/\/127\.0\.0\.1:\d+\/v1 connection refused/)
    expect(stdout).not.toMatch(/unjudgeable:\s+unjudgeable:/)
    expect(code).toBe(3)
  })
})
