// Issue 33, class 9 and 10 end to end: the built package in a user's project, the judge calls made from the run's
// main process (decision 0032). One test's judge reply is hostile — nested 300,000 deep, or a gzip bomb past the
// reply limit set in AGENT_VERDICT_JUDGE — and the others get normal verdicts. The run must complete, write its
// report, give the other tests their verdicts and the hostile one an unjudgeable verdict naming the cause.
// Class 7 in the same project: a Bedrock judge whose credentials come from a profile file (not the env) echoes
// the session token it was signed with; no written file and no output may hold it, in any encoding.
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { createServer as createH2cServer } from 'node:http2'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../src/testing/index'
import { leaksIn } from '../support/decoded-forms'
import { makeProject, repo, run, usePackageUnderTest } from './user-project'

let fake: FakeJudge
let proxy: Server
let proxyURL = ''
let hostile: { headers: Record<string, string>; body: Buffer } | undefined
let hostileRequests = 0
const cleanup: string[] = []

const pkg = usePackageUnderTest()

beforeAll(async () => {
  fake = await startFakeJudge({ defaultVerdict: { verdict: 'pass', reason: 'Matches the reference.' } })
  // In front of the fake judge: a request about the HOSTILE answer gets the hostile reply, the rest go through.
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      if (hostile && body.includes('HOSTILE')) {
        hostileRequests++
        res.writeHead(200, { 'content-type': 'application/json', ...hostile.headers })
        return res.end(hostile.body)
      }
      const upstream = new URL(fake.baseURL)
      const forward = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      forward.end(body)
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  proxyURL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`
}, 180_000)

afterAll(async () => {
  await fake?.close()
  proxy?.closeAllConnections()
  await new Promise((resolve) => proxy?.close(resolve))
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

interface ReportTest {
  name: string
  verdicts: Array<{ outcome: string; reason: string }>
}

async function runWithHostileReply(reply: NonNullable<typeof hostile>, judgeOptions = '') {
  hostile = reply
  hostileRequests = 0
  const project = makeProject('hostile-judge', pkg.dir, ['vitest'])
  cleanup.push(project)
  const result = await run(project, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'], {
    AGENT_VERDICT_JUDGE: `openai-compatible:${proxyURL}#fake-judge${judgeOptions}`,
    AGENT_VERDICT_MODE: 'live',
  })
  const report = JSON.parse(readFileSync(join(project, 'agent-verdict-report.json'), 'utf8')) as {
    tests: ReportTest[]
  }
  const byName = (name: string) => report.tests.find((t) => t.name.endsWith(name))
  return { result, byName }
}

it('a reply nested 300,000 deep is one unjudgeable verdict; the run completes with its report and the other verdicts', async () => {
  const depth = 300_000
  const { result, byName } = await runWithHostileReply({
    headers: {},
    body: Buffer.from('['.repeat(depth) + ']'.repeat(depth)),
  })
  expect(result.output).not.toMatch(/Maximum call stack|RangeError|Unhandled/)
  expect(result.output).toMatch(/Tests\s+1 failed \| 2 passed/)
  expect(byName('first answer')?.verdicts.map((v) => v.outcome)).toEqual(['pass'])
  expect(byName('third answer')?.verdicts.map((v) => v.outcome)).toEqual(['pass'])
  const refused = byName('hostile answer')?.verdicts ?? []
  expect(refused.map((v) => v.outcome)).toEqual(['unjudgeable'])
  expect(refused[0].reason).toMatch(/nested more than 64 levels/)
  expect(hostileRequests).toBe(1) // not retried: the same server sends the same again
  expect(result.code).toBe(1)
}, 180_000)

it('a gzip bomb past the reply limit set in AGENT_VERDICT_JUDGE is cut off and unjudgeable; the others still judged', async () => {
  const { result, byName } = await runWithHostileReply(
    { headers: { 'content-encoding': 'gzip' }, body: gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x20)) },
    ';maxReply=64KB',
  )
  expect(result.output).toMatch(/Tests\s+1 failed \| 2 passed/)
  expect(byName('first answer')?.verdicts.map((v) => v.outcome)).toEqual(['pass'])
  expect(byName('third answer')?.verdicts.map((v) => v.outcome)).toEqual(['pass'])
  const refused = byName('hostile answer')?.verdicts ?? []
  expect(refused.map((v) => v.outcome)).toEqual(['unjudgeable'])
  expect(refused[0].reason).toMatch(/gzip body that decompresses past the 64 KB reply limit/)
  expect(refused[0].reason).toMatch(/maxReply=SIZE/)
  // Read no further than the cap and a chunk or two of the 16 MB it offered.
  const stopped = /stopped reading after ([\d.]+) KB/.exec(refused[0].reason)
  expect(Number(stopped?.[1])).toBeLessThanOrEqual(64 + 128)
}, 180_000)

// Unique to this test: no other test registers or prints them.
const PROFILE = {
  accessKeyId: 'ASIAE2EPROFILE7Q2W9K3',
  secretAccessKey: 'e2eProfileSecret+Tq8Wn3/Lz5Kx7Jc2Vb9',
  sessionToken: 'IQoJb3JpZ2luX2VjE2eProfileSessionTok7Pq2Rw9Zx4Lm8Nb3Hs6',
}

/** Every file the run wrote under `dir` (symlinked dependencies are not the run's). */
function writtenFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) return []
    return stat.isDirectory() ? writtenFiles(path) : [path]
  })
}

it('AWS credentials from a profile file are registered: a Bedrock judge echoing the session token leaks it nowhere', async () => {
  const aws = mkdtempSync(join(tmpdir(), 'av-aws-profile-'))
  cleanup.push(aws)
  writeFileSync(
    join(aws, 'credentials'),
    `[default]\naws_access_key_id = ${PROFILE.accessKeyId}\naws_secret_access_key = ${PROFILE.secretAccessKey}\naws_session_token = ${PROFILE.sessionToken}\n`,
  )
  writeFileSync(join(aws, 'config'), '[default]\nregion = us-east-1\n')
  const signedWith: string[] = []
  // A local Converse endpoint (cleartext HTTP/2: the Bedrock runtime client speaks HTTP/2 only): it echoes the
  // token the request was signed with, literally and re-encoded.
  const bedrock = createH2cServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const token = String(req.headers['x-amz-security-token'] ?? '')
      signedWith.push(token)
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const echo = [
        `token ${token}`,
        `\\u${token.charCodeAt(0).toString(16).padStart(4, '0')}${token.slice(1)}`,
        encodeURIComponent(token).replace(/[a-z]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
        [...token].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''),
        `key ${PROFILE.accessKeyId} secret ${PROFILE.secretAccessKey}`,
      ].join(' | ')
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          output: {
            message: {
              role: 'assistant',
              content: [
                {
                  toolUse: {
                    toolUseId: 't1',
                    name: body.toolConfig?.toolChoice?.tool?.name,
                    input: { reasoning: `It matches the reference. Signed with: ${echo}`, score: 1 },
                  },
                },
              ],
            },
          },
          stopReason: 'tool_use',
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => bedrock.listen(0, '127.0.0.1', resolve))
  try {
    const project = makeProject('hostile-judge', pkg.dir, ['vitest'])
    cleanup.push(project)
    const result = await run(project, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'], {
      AGENT_VERDICT_JUDGE: 'bedrock:anthropic.claude-e2e-profile',
      AGENT_VERDICT_MODE: 'live',
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: `http://127.0.0.1:${(bedrock.address() as AddressInfo).port}`,
      AWS_SHARED_CREDENTIALS_FILE: join(aws, 'credentials'),
      AWS_CONFIG_FILE: join(aws, 'config'),
      AWS_REGION: 'us-east-1',
    })
    // The judge really was signed with the profile's token, and each test got its verdict with the echo in it.
    expect(signedWith.length).toBeGreaterThanOrEqual(3)
    expect(signedWith.every((t) => t === PROFILE.sessionToken)).toBe(true)
    const report = readFileSync(join(project, 'agent-verdict-report.json'), 'utf8')
    const tests = (JSON.parse(report) as { tests: ReportTest[] }).tests
    expect(tests.flatMap((t) => t.verdicts.map((v) => v.outcome))).toEqual(['pass', 'pass', 'pass'])
    expect(tests[0].verdicts[0].reason).toMatch(/Signed with: token \[redacted\]/)
    const files = writtenFiles(project)
    expect(files.map((f) => f.slice(project.length))).toContain('/agent-verdict-report.json')
    for (const secret of Object.values(PROFILE)) {
      expect(leaksIn(result.output, secret)).toBe(false)
      for (const file of files)
        expect({ file, leaks: leaksIn(readFileSync(file, 'latin1'), secret) }).toEqual({ file, leaks: false })
    }
  } finally {
    await new Promise((resolve) => bedrock.close(resolve))
  }
}, 180_000)
