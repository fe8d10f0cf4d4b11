// Issue 33, class 8: `agent-verdict diagnose` prints and writes what a trace holds (span evidence, subjects,
// attributes, status messages); a key in the trace — registered or of a well-known shape, literal or encoded,
// after a scheme word — never reaches its text output, its --format json output or its --json file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { main } from '../../src/cli/main'
import { leaksIn } from '../support/decoded-forms'

const REGISTERED = 'sk-envkey-Diag7Qw2Lp9Xv4Mn8Rk3'
// Not registered anywhere: redacted by their shape.
const SHAPES = {
  github: 'ghp_Diag0123456789abcdefghijABCDEFGHIJ01',
  githubPat: 'github_pat_11ADIAG0123456789_abcdefghijklmnopqrstuvwxyz',
  openai: 'sk-proj-DiagShape7Hs2Vb9Qw4Zx8Lm3',
  anthropic: 'sk-ant-api03-DiagShape5Tk8Wn2Rb7Qm4',
  slack: 'xoxb-123456789012-DiagSlack9Kp3Ws7',
  google: 'AIzaSyDiag1234567890abcdefghijklmnopqr',
  aws: 'AKIADIAGSHAPE7Q2W9X4',
  basic: 'ZGlhZzpwYXNzd29yZDEyMzQ1Njc4OQ==',
}

const attr = (key: string, value: string) => ({ key, value: { stringValue: value } })
const esc = (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')

/** One failing tool call whose status, attributes, input and output carry every key, in several forms. */
function hostileTrace(): string {
  const start = 1_760_000_000_000_000_000n
  const span = (id: string, parent: string | undefined, name: string, extra: Record<string, unknown>) => ({
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 2_000_000_000n),
    ...extra,
  })
  const leaky = [
    `Authorization: token ${SHAPES.github}`,
    `Bearer ${SHAPES.openai}`,
    `Basic ${SHAPES.basic}`,
    `x-api-key: ${SHAPES.anthropic}`,
    `slack ${SHAPES.slack} google ${SHAPES.google} aws ${SHAPES.aws} pat ${SHAPES.githubPat}`,
    `env key as JSON escapes ${esc(REGISTERED)}, percent ${[...REGISTERED].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')}, entities ${REGISTERED.replace(/-/g, '&#45')}`,
  ].join('; ')
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [attr('service.name', 'agent')] },
        scopeSpans: [
          {
            spans: [
              span('aaaaaaaaaaaaaaa1', undefined, 'invoke_agent support', {
                attributes: [attr('gen_ai.operation.name', 'invoke_agent'), attr('input.value', `task ${leaky}`)],
              }),
              span('aaaaaaaaaaaaaaa2', 'aaaaaaaaaaaaaaa1', 'execute_tool http_get', {
                status: { code: 2, message: `HTTP 401 Unauthorized: ${leaky}` },
                attributes: [
                  attr('gen_ai.operation.name', 'execute_tool'),
                  attr('gen_ai.tool.name', 'http_get'),
                  attr('http.request.header.authorization', `Bearer ${SHAPES.openai}`),
                  attr('http.response.status_code', '401'),
                  attr('input.value', leaky),
                  attr('output.value', `error 401: ${leaky}`),
                ],
              }),
            ],
          },
        ],
      },
    ],
  })
}

let dir: string
let saved: string | undefined
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'diagnose-secrets-'))
  writeFileSync(join(dir, 'trace.json'), hostileTrace())
  saved = process.env.OPENAI_API_KEY
  process.env.OPENAI_API_KEY = REGISTERED
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  if (saved === undefined) delete process.env.OPENAI_API_KEY
  else process.env.OPENAI_API_KEY = saved
})

async function run(...args: string[]) {
  let stdout = ''
  let stderr = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true))
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true))
  try {
    return { code: await main(args), stdout, stderr }
  } finally {
    vi.restoreAllMocks()
  }
}

/** Every planted key found in any decoded form of `text`, by name. */
function leaked(text: string): string[] {
  const all: Record<string, string> = { registered: REGISTERED, ...SHAPES }
  return Object.entries(all)
    .filter(([, secret]) => leaksIn(text, secret))
    .map(([name]) => name)
}

describe('diagnose output holds no planted key', () => {
  it('text output: the finding and its evidence are shown, every key redacted', async () => {
    const out = join(dir, 'diagnosis.json')
    const { code, stdout, stderr } = await run('diagnose', join(dir, 'trace.json'), '--full', '--json', out)
    expect(code).toBe(1) // a finding: the 401 is an Authentication Error
    expect(stdout).toContain('Authentication Errors')
    expect(stdout).toContain('[redacted]') // the evidence is there, scrubbed
    expect(stdout).toMatch(/token\s+\[redacted\]/) // the scheme word stays, the token goes
    const json = readFileSync(out, 'utf8')
    expect(json).toContain('[redacted]')
    expect({ stdout: leaked(stdout), stderr: leaked(stderr), json: leaked(json) }).toEqual({
      stdout: [],
      stderr: [],
      json: [],
    })
  })

  it('--format json on stdout', async () => {
    const { stdout } = await run('diagnose', join(dir, 'trace.json'), '--format', 'json')
    expect(JSON.parse(stdout).traces).toHaveLength(1)
    expect(stdout).toContain('[redacted]')
    expect(leaked(stdout)).toEqual([])
  })
})
