// Decisions 0031/0032: a judge call of the built package sends with node:http (src/judges/http-transport.ts) from
// the run's coordinator, so a test worker that calls a live judge never loads Node's fetch implementation (undici,
// ~20 ms of a worker's start and a few ms of CPU per request). The SDK's source is not rewritten (decision 0052).
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../src/testing/index'
import { makeProject, repo, run, usePackageUnderTest } from './user-project'

let fake: FakeJudge
let project: string
const cleanup: string[] = []

const pkg = usePackageUnderTest()

beforeAll(async () => {
  project = makeProject('concurrent-vitest', pkg.dir, ['vitest'])
  cleanup.push(project)
  fake = await startFakeJudge({ defaultVerdict: { verdict: 'pass', reason: 'Matches the reference.' } })
}, 120_000)

afterAll(async () => {
  await fake?.close()
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

it('a worker calling a live openai-compatible judge gets its verdicts without loading undici', async () => {
  writeFileSync(
    join(project, 'transport.eval.ts'),
    `import { writeFileSync } from 'node:fs'
import { afterAll, expect, test } from 'vitest'

for (const i of [1, 2, 3])
  test(\`answer \${i}\`, async () => {
    await expect(\`The total is \${i} dollars.\`).toBeCorrect({ reference: \`Total: \${i} dollars\` })
  })

afterAll(() => {
  writeFileSync('undici.txt', process.moduleLoadList.filter((m) => m.includes('undici')).join('\\n') || 'not loaded')
})
`,
  )
  fake.reset()
  const result = await run(project, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', 'transport.eval.ts'], {
    AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
    // Agent recordings are on (eval files record by default), but a live run records nothing and loads none of
    // their code, whose interceptors would load undici.
    AGENT_VERDICT_MODE: 'live',
  })
  expect(result.code, result.output).toBe(0)
  expect(result.output).toMatch(/Tests\s+3 passed/)
  expect(fake.calls).toHaveLength(3) // the judge was called, over HTTP
  expect(readFileSync(join(project, 'undici.txt'), 'utf8')).toBe('not loaded')
}, 120_000)

it("the plugin opens the judge's connections while the worker starts, and the calls go out on them (decision 0033)", async () => {
  // A counting proxy in front of the fake judge: when each connection was accepted, and when its first byte came.
  // This project links the package (as npm link or a workspace does), so Vite runs the coordinator's copy of it
  // as source while the plugin's is Node's: the parked connections must be found across the two copies.
  const { createServer, connect } = await import('node:net')
  const upstream = new URL(fake.baseURL)
  const connections: Array<{ acceptedAt: number; firstByteAt?: number }> = []
  const proxy = createServer((client) => {
    const seen: { acceptedAt: number; firstByteAt?: number } = { acceptedAt: Date.now() }
    connections.push(seen)
    client.once('data', () => (seen.firstByteAt = Date.now()))
    const server = connect(Number(upstream.port), upstream.hostname)
    client.pipe(server).pipe(client)
    client.on('error', () => server.destroy())
    server.on('error', () => client.destroy())
  })
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
  try {
    writeFileSync(
      join(project, 'preconnect.eval.ts'),
      `import { writeFileSync } from 'node:fs'
import { expect, test } from 'vitest'

writeFileSync('file-started.txt', String(Date.now()))
for (const i of [1, 2, 3])
  test(\`answer \${i}\`, async () => {
    await expect(\`The total is \${i} dollars.\`).toBeCorrect({ reference: \`Total: \${i} dollars\` })
  })
`,
    )
    fake.reset()
    const base = `http://127.0.0.1:${(proxy.address() as { port: number }).port}${upstream.pathname}`
    const result = await run(project, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', 'preconnect.eval.ts'], {
      AGENT_VERDICT_JUDGE: `openai-compatible:${base}#fake-judge`,
      // Agent recordings are on (eval files record by default); a live run loads none of their code, which would
      // delay the worker's first call towards the connections' 10 s wait on a loaded machine. With recordings
      // intercepting, judge calls go around their patch (test/recording/judge-around.test.ts).
      AGENT_VERDICT_MODE: 'live',
      AGENT_VERDICT_CONCURRENCY: '3',
    })
    expect(result.code, result.output).toBe(0)
    expect(fake.calls).toHaveLength(3)
    const fileStarted = Number(readFileSync(join(project, 'file-started.txt'), 'utf8'))
    // Three connections (the run's limit), all open before the test file even ran, and each carried a call:
    // none was opened for the calls themselves.
    expect(connections, JSON.stringify({ fileStarted, connections })).toHaveLength(3) // when each came, if not
    for (const c of connections) {
      expect(c.acceptedAt).toBeLessThanOrEqual(fileStarted)
      expect(c.firstByteAt).toBeGreaterThanOrEqual(fileStarted)
    }
  } finally {
    proxy.close()
  }
}, 120_000)
