// An agent that imports Node's request functions by name (`import { request } from 'node:http'`, bound when its
// module loaded, before recording started) is recorded as one using `http.request` is, and gets Node's own back after.
import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, get, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { beginFileRecording, endFileRecording } from '../../src/recording/recorder'
import { recordingPathFor } from '../../src/recording/store'

const current = new AsyncLocalStorage<{ test: string; attempt: string }>()
let server: Server
let base: string
let dir: string
const saved = process.env.AGENT_VERDICT_MODE
const pristine = { request, get }

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'av-named-'))
  server = createServer((req, res) => res.end(JSON.stringify({ path: req.url })))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  if (saved === undefined) delete process.env.AGENT_VERDICT_MODE
  else process.env.AGENT_VERDICT_MODE = saved
  await new Promise((resolve) => server.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

const read = (res: import('node:http').IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = ''
    res.on('data', (d) => (body += d))
    res.on('end', () => resolve(body))
  })
const viaRequest = (path: string) =>
  new Promise<string>((resolve, reject) =>
    request(`${base}${path}`, (res) => read(res).then(resolve))
      .on('error', reject)
      .end(),
  )
const viaGet = (path: string) =>
  new Promise<string>((resolve, reject) => get(`${base}${path}`, (res) => read(res).then(resolve)).on('error', reject))

it("records calls made with node:http's request and get imported by name, and restores them after", async () => {
  const file = join(dir, 'named.eval.ts')
  process.env.AGENT_VERDICT_MODE = 'record'
  beginFileRecording(file, {}, () => current.getStore(), { update: false })
  await current.run({ test: 'named', attempt: '0.0' }, async () => {
    expect(await viaRequest('/by-request')).toContain('/by-request')
    expect(await viaGet('/by-get')).toContain('/by-get')
  })
  await endFileRecording({ complete: true })
  const text = readFileSync(recordingPathFor(file), 'utf8')
  expect(text).toContain('/by-request')
  expect(text).toContain('/by-get')
  expect(request).toBe(pristine.request)
  expect(get).toBe(pristine.get)
})
