import { ImageInputError } from './errors'

/** How image URLs are fetched. `fetch` is injectable so tests never reach the network. */
export interface FetchImageOptions {
  fetch?: typeof globalThis.fetch
  /** Abort the download past this many bytes (default 20 MB). */
  maxBytes?: number
  /** Abort when the whole download (redirects and body included) takes longer (default 10 s). */
  timeoutMs?: number
}

export const DEFAULT_FETCH_MAX_BYTES = 20 * 1024 * 1024
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000
const MAX_REDIRECTS = 5

// One download per URL per process: many tests judge the same chart, and concurrent loads share it.
const cache = new Map<string, Promise<Uint8Array>>()

/** Forgets fetched images (tests use it; long-lived processes may too). @example clearImageFetchCache() */
export function clearImageFetchCache(): void {
  cache.clear()
}

/** A URL for messages: no credentials and no query string (signed URLs carry tokens there). */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?…' : ''}`
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '')
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

/** Throws unless the URL is https, or http on a loopback host (tests serve images from 127.0.0.1). */
export function assertFetchable(url: URL): void {
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) return
  const what =
    url.protocol === 'http:'
      ? 'plain http is only allowed for localhost/127.0.0.1'
      : `${url.protocol} URLs cannot be fetched`
  throw new ImageInputError(
    `${describeUrl(url)}: ${what} — use an https URL or pass the image bytes (Buffer) instead`,
    {
      source: describeUrl(url),
      limit: 'protocol',
    },
  )
}

async function readCapped(res: Response, source: string, maxBytes: number, abort: () => void): Promise<Uint8Array> {
  const tooBig = (seen: string) =>
    new ImageInputError(
      `${source}: download is ${seen}, over the ${maxBytes}-byte cap — raise maxBytes or pass a smaller image`,
      {
        source,
        limit: 'maxBytes',
      },
    )
  const declared = Number(res.headers.get('content-length'))
  if (declared > maxBytes) {
    abort()
    throw tooBig(`${declared} bytes`)
  }
  if (!res.body) return new Uint8Array(await res.arrayBuffer())
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = res.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    // Stop reading as soon as the cap is passed: a huge or endless body must not fill memory.
    if (total > maxBytes) {
      abort()
      await reader.cancel().catch(() => {})
      throw tooBig(`more than ${maxBytes} bytes`)
    }
    chunks.push(value)
  }
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

async function download(start: URL, options: FetchImageOptions): Promise<Uint8Array> {
  const doFetch = options.fetch ?? globalThis.fetch
  const maxBytes = options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, timeoutMs)
  let url = start
  try {
    for (let hop = 0; ; hop++) {
      assertFetchable(url) // every hop: a redirect must not lead off to a non-https or non-loopback host
      const res = await doFetch(url, { signal: controller.signal, redirect: 'manual' })
      const location = res.headers.get('location')
      if (res.status >= 300 && res.status < 400 && location) {
        if (hop >= MAX_REDIRECTS)
          throw new ImageInputError(
            `${describeUrl(start)}: more than ${MAX_REDIRECTS} redirects — pass the final URL or the bytes`,
            { source: describeUrl(start) },
          )
        await res.body?.cancel().catch(() => {})
        url = new URL(location, url)
        continue
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => {})
        throw new ImageInputError(
          `${describeUrl(url)}: HTTP ${res.status} fetching the image — check the URL, or download it and pass the bytes`,
          { source: describeUrl(url) },
        )
      }
      return await readCapped(res, describeUrl(url), maxBytes, () => controller.abort())
    }
  } catch (err) {
    if (err instanceof ImageInputError) throw err
    const source = describeUrl(url)
    if (timedOut) {
      throw new ImageInputError(
        `${source}: no complete response within ${timeoutMs} ms — raise timeoutMs, or download the image yourself and pass the bytes`,
        { source, limit: 'timeoutMs', cause: err },
      )
    }
    const reason = err instanceof Error ? err.message : String(err)
    throw new ImageInputError(
      `${source}: could not fetch the image (${reason}) — check the URL, or pass the bytes instead`,
      { source, cause: err },
    )
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Downloads an image once per process (cached by URL), with a size cap enforced while streaming and
 * a timeout. Only https, or http on loopback; anything else is refused without a request.
 *
 * @example
 * const bytes = await fetchImageBytes('https://example.com/chart.png', { timeoutMs: 5_000 })
 */
export async function fetchImageBytes(input: URL | string, options: FetchImageOptions = {}): Promise<Uint8Array> {
  const url = typeof input === 'string' ? new URL(input) : input
  assertFetchable(url)
  let pending = cache.get(url.href)
  if (!pending) {
    pending = download(url, options)
    cache.set(url.href, pending)
    // A failed download is not cached, so a later test can try again.
    pending.catch(() => {
      if (cache.get(url.href) === pending) cache.delete(url.href)
    })
  }
  const bytes = await pending
  const maxBytes = options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES
  if (bytes.byteLength > maxBytes) {
    throw new ImageInputError(
      `${describeUrl(url)}: image is ${bytes.byteLength} bytes, over the ${maxBytes}-byte cap — raise maxBytes or pass a smaller image`,
      { source: describeUrl(url), limit: 'maxBytes' },
    )
  }
  return bytes
}
