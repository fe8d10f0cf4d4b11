// Issue 33 class 12: hostile posts to the receiver (trace ids as paths, floods, amplification, planted
// links, slow clients). Nothing may be written outside `out`, caps answer 413/429, and serving goes on.
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { receiveCommand } from '../../../src/cli/receive'
import { startTraceReceiver, type TraceReceiver, type TraceReceiverOptions } from '../../../src/trace/receiver/receiver'

const open: TraceReceiver[] = []
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()))
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/** A sandbox: `out` inside it, and a `victim` file beside `out` that a traversal would overwrite. */
async function sandbox() {
  const root = await mkdtemp(join(tmpdir(), 'receiver-hostile-'))
  dirs.push(root)
  const out = join(root, 'out')
  await mkdir(out)
  await writeFile(join(root, 'victim'), 'untouched')
  await writeFile(join(root, 'victim.json'), 'untouched')
  return { root, out }
}

/** Every file under root except those in out, with contents: what a hostile request must never change. */
async function outside(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name)
    if (path.startsWith(join(root, 'out'))) continue
    if (entry.isFile()) files[path.slice(root.length)] = await readFile(path, 'utf8')
  }
  return files
}

async function receiver(opts: TraceReceiverOptions = {}): Promise<TraceReceiver> {
  const r = await startTraceReceiver({ quietMs: 10, ...opts })
  open.push(r)
  return r
}

let nextSpan = 1
/** An OTLP JSON request with one span per trace id (plus `extra` spans in the first), resource attributes `pad`. */
function doc(traceIds: string[], opts: { pad?: string; spansEach?: number } = {}): string {
  const spans = traceIds.flatMap((traceId) =>
    Array.from({ length: opts.spansEach ?? 1 }, () => ({
      traceId,
      spanId: (nextSpan++).toString(16).padStart(16, '0'),
      name: 'step',
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000001000000000',
    })),
  )
  const attributes = opts.pad ? [{ key: 'pad', value: { stringValue: opts.pad } }] : []
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes }, scopeSpans: [{ scope: { name: 's' }, spans }] }],
  })
}

function post(r: TraceReceiver, body: string): Promise<Response> {
  return fetch(r.tracesUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
}

const hex = (n: number) => n.toString(16).padStart(32, '0')

/** Trace ids a file name must never come from; each must be answered 400 naming the rule. */
const HOSTILE_IDS: Array<[string, string]> = [
  ['parent traversal', '../victim'],
  ['traversal through out', '../out/../victim'],
  ['traversal through a subfolder', 'a/b/../../../victim'],
  ['absolute path', '/tmp/agent-verdict-victim'],
  ['Windows separators', '..\\victim'],
  ['Windows absolute', 'C:\\Windows\\victim'],
  ['NUL byte', `${'a'.repeat(16)}\u0000${'b'.repeat(15)}`],
  ['a very long name', 'a'.repeat(5000)],
  ['31 hex digits', 'a'.repeat(31)],
  ['33 hex digits', 'a'.repeat(33)],
  ['32 chars with a slash', `${'a'.repeat(15)}/${'b'.repeat(16)}`],
  ['all zero', '0'.repeat(32)],
  ['all zero in base64', 'AAAAAAAAAAAAAAAAAAAAAA=='],
  ['a 64-bit id', 'a'.repeat(16)],
  ['dots only', '..'],
  ['non-ASCII digits', '٠١٢٣٤٥٦٧٨٩'.repeat(3).slice(0, 32)],
]

describe('trace ids as file names', () => {
  it.each(HOSTILE_IDS)('%s: 400 naming the rule, nothing stored or written anywhere', async (_what, traceId) => {
    const { root, out } = await sandbox()
    const before = await outside(root)
    const r = await receiver({ out })
    const res = await post(r, doc([traceId]))
    expect(res.status).toBe(400)
    expect(((await res.json()) as { message: string }).message).toMatch(
      /a trace id must be 32 hex digits \(16 bytes, as hex or base64\), not all zero/,
    )
    // A valid request after it is still served and written inside out.
    expect((await post(r, doc([hex(7)]))).status).toBe(200)
    await r.close()
    expect(await readdir(out)).toEqual([`${hex(7)}.json`])
    expect(await outside(root)).toEqual(before)
    expect(r.stats.traces).toBe(1)
  })

  it('controls: uppercase hex and base64 ids are valid and named by their lowercase hex', async () => {
    const { out } = await sandbox()
    const r = await receiver({ out })
    const upper = 'ABCDEF0123456789ABCDEF0123456789'
    const base64 = Buffer.from('00112233445566778899aabbccddeeff', 'hex').toString('base64')
    expect((await post(r, doc([upper, base64]))).status).toBe(200)
    await r.close()
    expect((await readdir(out)).sort()).toEqual([
      '00112233445566778899aabbccddeeff.json',
      `${upper.toLowerCase()}.json`,
    ])
  })

  it('a symlink planted in out (at the file or at a temp name) is replaced, never written through', async () => {
    const { root, out } = await sandbox()
    const id = hex(0xabc)
    const victim = join(root, 'victim')
    await symlink(victim, join(out, `${id}.json`))
    // The temp name an earlier version used: a link there was followed by writeFile.
    await symlink(join(root, 'victim.json'), join(out, `${id}.json.${process.pid}.tmp`))
    const before = await outside(root)
    const r = await receiver({ out })
    expect((await post(r, doc([id]))).status).toBe(200)
    await r.close()
    expect(await outside(root)).toEqual(before)
    expect((await lstat(join(out, `${id}.json`))).isSymbolicLink()).toBe(false)
    expect(JSON.parse(await readFile(join(out, `${id}.json`), 'utf8')).resourceSpans).toHaveLength(1)
  })
})

describe('caps per request (413) and per run (429), serving goes on', () => {
  it('the issue flood: 26 requests of 2,711 trace ids each write no file; a request that fits still does', async () => {
    const { root, out } = await sandbox()
    const r = await receiver({ out })
    for (let i = 0; i < 26; i++) {
      const res = await post(r, doc(Array.from({ length: 2711 }, (_, j) => hex(i * 10_000 + j + 1))))
      expect(res.status).toBe(413)
      expect(((await res.json()) as { message: string }).message).toMatch(
        /carries 2711 trace ids, over the 1000 one request may store \(limits\.requestTraces, CLI --max-request-traces\)/,
      )
    }
    expect((await post(r, doc([hex(1), hex(2)]))).status).toBe(200)
    await r.close()
    expect((await readdir(out)).sort()).toEqual([`${hex(1)}.json`, `${hex(2)}.json`])
    expect(Object.keys(await outside(root)).sort()).toEqual(['/victim', '/victim.json'])
  })

  const perRequest: Array<[string, TraceReceiverOptions['limits'], string, RegExp]> = [
    ['spans', { requestSpans: 10 }, doc([hex(1)], { spansEach: 11 }), /carries 11 spans, over the 10/],
    ['trace ids', { requestTraces: 3 }, doc([hex(1), hex(2), hex(3), hex(4)]), /carries 4 trace ids, over the 3/],
    // One 20 kB resource copied into 50 traces: 1 MB of files from a 22 kB body.
    [
      'bytes after the resource is copied into each trace',
      { requestBytes: 500_000 },
      doc(
        Array.from({ length: 50 }, (_, j) => hex(j + 1)),
        { pad: 'x'.repeat(20_000) },
      ),
      /carries 10\d{5} bytes of trace JSON, over the 500000/,
    ],
  ]
  it.each(perRequest)('over the per-request %s cap: 413, nothing stored', async (_what, limits, body, message) => {
    const r = await receiver({ limits })
    const res = await post(r, body)
    expect(res.status).toBe(413)
    expect(((await res.json()) as { message: string }).message).toMatch(message)
    expect(r.stats).toMatchObject({ spans: 0, traces: 0, bytes: 0, accepted: 0, refused: 1 })
    // Control: the same kind of request at the cap is accepted.
    expect((await post(r, doc([hex(99)]))).status).toBe(200)
  })

  it('run caps: traces, bytes and spans each refuse the request that would pass them (429); later ones that fit pass', async () => {
    const { out } = await sandbox()
    const r = await receiver({ out, limits: { runTraces: 5, runSpans: 12, runBytes: 60_000 } })
    const message = async (res: Response) => ((await res.json()) as { message: string }).message
    expect((await post(r, doc([hex(1), hex(2), hex(3), hex(4)]))).status).toBe(200)
    const traces = await post(r, doc([hex(5), hex(6)]))
    expect(traces.status).toBe(429)
    expect(traces.headers.get('retry-after')).toBeNull()
    expect(await message(traces)).toMatch(
      /has stored 4 traces and this request would add 2, over the 5 one run may store \(limits\.runTraces, CLI --max-run-traces\); nothing of it was stored/,
    )
    const bytes = await post(r, doc([hex(1)], { pad: 'x'.repeat(70_000) }))
    expect(bytes.status).toBe(429)
    expect(await message(bytes)).toMatch(/bytes of trace JSON .*limits\.runBytes/)
    // More spans of a stored trace add no file: within the trace cap, up to the span cap.
    expect((await post(r, doc([hex(1)], { spansEach: 8 }))).status).toBe(200)
    const spans = await post(r, doc([hex(2)]))
    expect(spans.status).toBe(429)
    expect(await message(spans)).toMatch(
      /has stored 12 spans and this request would add 1, over the 12 .*limits\.runSpans/,
    )
    await r.close()
    expect(r.stats).toMatchObject({ spans: 12, traces: 4, accepted: 2, refused: 3 })
    expect(r.stats.bytes).toBeLessThan(60_000)
    expect(await readdir(out)).toHaveLength(4)
  })

  it('a run cap belongs to one receiver: a new one starts from zero', async () => {
    const r = await receiver({ limits: { runTraces: 1 } })
    expect((await post(r, doc([hex(1)]))).status).toBe(200)
    expect((await post(r, doc([hex(2)]))).status).toBe(429)
    const fresh = await receiver({ limits: { runTraces: 1 } })
    expect((await post(fresh, doc([hex(2)]))).status).toBe(200)
  })

  it('limits that are not positive integers are a TypeError', async () => {
    await expect(startTraceReceiver({ limits: { runTraces: 0 } })).rejects.toThrow(
      'limits.runTraces must be a positive integer, got 0',
    )
    await expect(startTraceReceiver({ limits: { requestBytes: Number.NaN } })).rejects.toThrow(TypeError)
  })
})

describe('slow and concurrent clients', () => {
  it('over the concurrent-request cap: 429 with retry-after 1; the stalled request still completes', async () => {
    const r = await receiver({ limits: { concurrentRequests: 1 } })
    const body = doc([hex(1)])
    // A client that sends its headers and half its body, then stalls.
    const slow = request(r.tracesUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    })
    const slowStatus = new Promise<number>((resolve, reject) => {
      slow.on('response', (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      slow.on('error', reject)
    })
    slow.write(body.slice(0, 20))
    // The receiver exposes no count of requests in flight to wait on: a second of room for the stalled request to
    // take the one slot on a loaded machine (100 ms before; if it is late, the next post takes the slot and gets 200).
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const busy = await post(r, doc([hex(2)]))
    expect(busy.status).toBe(429)
    expect(busy.headers.get('retry-after')).toBe('1')
    slow.end(body.slice(20))
    expect(await slowStatus).toBe(200)
    expect((await post(r, doc([hex(2)]))).status).toBe(200)
    expect(r.stats.traces).toBe(2)
  })
})

describe('agent-verdict receive on port 0 under the same hostile posts', () => {
  it('writes only valid trace files inside --out, applies the --max-* flags, and keeps serving', async () => {
    const { root, out } = await sandbox()
    const before = await outside(root)
    const stop = new AbortController()
    let stdoutText = ''
    let stderrText = ''
    let gotUrl: (url: string) => void = () => undefined
    const url = new Promise<string>((resolve) => {
      gotUrl = resolve
    })
    const exit = receiveCommand(
      ['--port', '0', '--out', out, '--quiet-ms', '10', '--max-run-traces', '3', '--max-request-spans', '5'],
      {
        signal: stop.signal,
        stdout: {
          write(text: string) {
            stdoutText += text
            if (stdoutText.includes('\n')) gotUrl(stdoutText.split('\n')[0])
            return true
          },
        },
        stderr: {
          write(text: string) {
            stderrText += text
            return true
          },
        },
      },
    )
    const base = await url
    const send = (body: string) =>
      fetch(`${base}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    for (const [, id] of HOSTILE_IDS) expect((await send(doc([id]))).status).toBe(400)
    expect((await send(doc([hex(1)], { spansEach: 6 }))).status).toBe(413)
    expect((await send(doc([hex(1), hex(2), hex(3)]))).status).toBe(200)
    expect((await send(doc([hex(4)]))).status).toBe(429)
    expect((await send(doc([hex(3)]))).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 100))
    stop.abort()
    expect(await exit).toBe(0)
    expect((await readdir(out)).sort()).toEqual([1, 2, 3].map((n) => `${hex(n)}.json`))
    expect(await outside(root)).toEqual(before)
    expect(stderrText).toMatch(/requests refused \(last: 429 the receiver has stored 3 traces/)
    expect(stderrText).not.toMatch(/could not write/)
  })

  it('rejects a limit flag that is not a positive integer with usage', async () => {
    let err = ''
    const code = await receiveCommand(['--max-run-bytes=0'], {
      stderr: {
        write(t: string) {
          err += t
          return true
        },
      },
    })
    expect(code).toBe(2)
    expect(err).toMatch(/--max-run-bytes must be an integer 1-/)
    // One line pointing at the usage, not the whole usage text (issue 35: hints relevant to the error only).
    expect(err).toContain('agent-verdict receive --help')
  })
})
