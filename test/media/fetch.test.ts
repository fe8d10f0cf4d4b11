import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { ImageInputError } from '../../src/media/errors'
import { clearImageFetchCache, fetchImageBytes } from '../../src/media/fetch'
import { loadImage } from '../../src/media/load'
import { rejectionOf } from '../helpers/rejection'

const png = readFileSync(new URL('../fixtures/images/revenue-by-region.png', import.meta.url))
const hits = new Map<string, number>()
let endlessClosed: Promise<void>
let server: Server
let base: string

beforeAll(async () => {
  let markClosed = () => {}
  endlessClosed = new Promise((resolve) => {
    markClosed = resolve
  })
  server = createServer((req, res) => {
    const path = req.url ?? ''
    hits.set(path, (hits.get(path) ?? 0) + 1)
    if (path === '/chart.png') return res.end(png)
    if (path === '/redirect-local') return res.writeHead(302, { location: '/chart.png' }).end()
    if (path === '/redirect-external')
      return res.writeHead(302, { location: 'http://images.example.com/chart.png' }).end()
    if (path === '/declared-huge') {
      res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) })
      return res.write(png)
    }
    if (path === '/hang') return // never answers: the timeout must end it
    if (path === '/endless') {
      // Streams forever without a content-length: only the reader's cap can stop it.
      res.writeHead(200, { 'content-type': 'image/png' })
      const chunk = Buffer.concat([png, Buffer.alloc(64 * 1024)])
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      }
      res.on('drain', pump)
      res.on('close', markClosed)
      return pump()
    }
    res.writeHead(404).end('not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  clearImageFetchCache()
  hits.clear()
})

const rejection = (promise: Promise<unknown>) => rejectionOf(promise, ImageInputError)

describe('image URLs', () => {
  it('fetches a loopback http URL once per process, also under concurrent loads', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => loadImage(`${base}/chart.png`)))
    expect(a).toMatchObject({ format: 'png', width: 720, height: 480, source: `${base}/chart.png` })
    expect(b.digest).toBe(a.digest)
    expect(c.digest).toBe(a.digest)
    await loadImage(new URL(`${base}/chart.png`))
    expect(hits.get('/chart.png')).toBe(1)
  })

  it('follows same-host redirects', async () => {
    expect(await loadImage(`${base}/redirect-local`)).toMatchObject({ format: 'png', width: 720 })
    expect(hits.get('/chart.png')).toBe(1)
  })

  it('aborts a streamed body once it passes the size cap', async () => {
    const err = await rejection(loadImage(`${base}/endless`, { maxBytes: 256 * 1024 }))
    expect(err.limit).toBe('maxBytes')
    expect(err.message).toContain('over the 262144-byte cap')
    await endlessClosed // the connection was torn down, not drained to the end
  })

  it('refuses a declared content-length over the cap before reading the body', async () => {
    const err = await rejection(loadImage(`${base}/declared-huge`))
    expect(err.message).toContain(`${50 * 1024 * 1024} bytes, over the ${20 * 1024 * 1024}-byte cap`)
  })

  it('times out a server that never answers', async () => {
    const err = await rejection(loadImage(`${base}/hang`, { timeoutMs: 300 }))
    expect(err.limit).toBe('timeoutMs')
    expect(err.message).toContain('no complete response within 300 ms')
  })

  it('reports HTTP errors with the status and does not cache failures', async () => {
    const err = await rejection(loadImage(`${base}/missing.png`))
    expect(err.message).toContain('HTTP 404')
    await rejection(loadImage(`${base}/missing.png`))
    expect(hits.get('/missing.png')).toBe(2)
  })
})

describe('nothing reaches the network', () => {
  it('refuses plain http to a non-loopback host without making a request', async () => {
    const injected = vi.fn<typeof globalThis.fetch>()
    const global = vi.spyOn(globalThis, 'fetch')
    const err = await rejection(loadImage('http://images.example.com/chart.png', { fetch: injected }))
    expect(err.message).toContain(
      'plain http is only allowed for localhost/127.0.0.1 — use an https URL or pass the image bytes',
    )
    await rejection(loadImage('ftp://images.example.com/chart.png'))
    expect(injected).not.toHaveBeenCalled()
    expect(global).not.toHaveBeenCalled()
    global.mockRestore()
  })

  it('refuses a redirect that leads off loopback to plain http', async () => {
    const global = vi.spyOn(globalThis, 'fetch')
    const err = await rejection(loadImage(`${base}/redirect-external`))
    expect(err.message).toContain('http://images.example.com/chart.png: plain http is only allowed')
    expect(global.mock.calls.map(([url]) => String(url))).toEqual([`${base}/redirect-external`])
    global.mockRestore()
  })

  it('fetches https through the injected fetch and keeps signed query strings out of messages', async () => {
    const injected = vi.fn<typeof globalThis.fetch>(async () => new Response(png))
    const url = 'https://cdn.example.com/chart.png?X-Amz-Signature=planted-secret'
    const image = await loadImage(url, { fetch: injected })
    await fetchImageBytes(url, { fetch: injected })
    expect(injected).toHaveBeenCalledTimes(1)
    expect(image.source).toBe('https://cdn.example.com/chart.png?…')
    const failing = vi.fn<typeof globalThis.fetch>(async () => new Response('<!doctype html><html>denied</html>'))
    const err = await rejection(loadImage('https://cdn.example.com/x.png?token=planted-secret', { fetch: failing }))
    expect(err.detected).toBe('html')
    expect(err.message).not.toContain('planted-secret')
  })
})
