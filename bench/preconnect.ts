// Preconnect: what opening the judge's connections while the first worker starts (decision 0033) saves the
// first wave of calls when the judge is remote: TLS, and a round trip that is not ~0 as on loopback.
//  - preconnect.first_wave_saving_ms: a first wave of 8 calls at once (the judge limit) through the judge
//    transport to the fake judge (L = 200 ms) behind an https endpoint (the test-only certificate of
//    test/fixtures/tls) reached through a proxy that adds RTT_MS to every byte's round trip and one round trip
//    more before a new connection's first bytes (the TCP handshake the kernel does at once on loopback). The
//    wave starts 250 ms after the connections were asked for (the plugin's window while the worker starts) or,
//    with preconnect off, from nothing. Wave time off minus on, median of TRIALS alternated pairs; about two
//    round trips are expected (TCP, and TLS 1.3's one).
// A simulation: no remote judge is reachable from here. TLS and the round trips are real; the distance is not.
// That the plugin's runs do open them is tested (test/e2e/preconnect.test.ts), not benched here.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { repo } from '../test/e2e/user-project'
import type { Emit } from './emit'

const RTT_MS = 40
const TRIALS = 9
const WAVE = 8
const L = 200
const CHILD = fileURLToPath(new URL('./preconnect-child.ts', import.meta.url))
const TLS_DIR = join(repo, 'test/fixtures/tls')

interface Wave {
  ms: number
  /** TLS handshakes in the trial, and how many of them were done before the wave started. */
  handshakes: number
  ahead: number
  ok: number
}

export async function run(emit: Emit): Promise<void> {
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', CHILD, TLS_DIR, String(RTT_MS), String(TRIALS), String(WAVE), String(L)],
      { cwd: repo, env: { ...process.env, NODE_EXTRA_CA_CERTS: join(TLS_DIR, 'localhost-cert.pem') } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`preconnect bench child failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  )
  const pairs = JSON.parse(out.trim().split('\n').pop() as string) as Array<{ off: Wave; on: Wave }>
  const saving = (p: { off: Wave; on: Wave }) => p.off.ms - p.on.ms
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const lost = pairs.reduce((n, p) => n + 2 * WAVE - p.off.ok - p.on.ok, 0)
  emit(
    'preconnect.first_wave_saving_ms',
    median(pairs.map(saving)),
    `rtt_ms=${RTT_MS} wave=${WAVE} L=${L} wave_ms off=${median(pairs.map((p) => p.off.ms)).toFixed(0)} on=${median(pairs.map((p) => p.on.ms)).toFixed(0)} tls_handshakes off=${median(pairs.map((p) => p.off.handshakes))} on=${median(pairs.map((p) => p.on.handshakes))} (done before the wave: off ${median(pairs.map((p) => p.off.ahead))}, on ${median(pairs.map((p) => p.on.ahead))}) lost=${lost} all=${pairs.map((p) => saving(p).toFixed(0)).join(',')} (simulated distance, real TLS)`,
  )
}
