// What scrubbing a large report costs now that every string holding `\`, `%` or `&` is also read decoded
// (issue 33, class 6): `scrubDeep` of a synthetic 20,000-verdict report, against `JSON.stringify` of the same
// report (the reporter does both), with ordinary reasons, with URLs and entities in 1 string in 10, and with
// escapes in every string (the worst case for the decoder).
import { registerSecret, scrubDeep } from '../src/config/secrets'
import type { Emit } from './emit'

const VERDICTS = 20_000

function report(escapeEvery: number) {
  const verdicts = Array.from({ length: VERDICTS }, (_, i) => {
    const escaped = escapeEvery > 0 && i % escapeEvery === 0
    const reason = escaped
      ? `The chart at https://example.test/c?id=${i}&fmt=png%20x shows EMEA &amp; APAC; the answer says \\u0022${i}\\u0022.`
      : `The answer names region ${i % 7} and the chart shows region ${(i + 3) % 7}; the amount differs by ${i}.`
    return {
      id: `v${i}`,
      metric: 'faithfulness',
      level: 'output',
      score: 0.5,
      pass: i % 3 !== 0,
      reason,
      evidence: [{ quote: reason.slice(0, 60), from: 'answer' }],
      judge: { provider: 'openai', model: 'gpt-4.1', promptVersion: 'v3', tokens: 1200, latencyMs: 900, cached: false },
    }
  })
  return { schemaVersion: 3, tests: [{ file: 'a.test.ts', name: 'many', verdicts }] }
}

function timeMs(run: () => unknown, rounds = 5): number {
  const times: number[] = []
  for (let r = 0; r < rounds; r++) {
    const t = performance.now()
    run()
    times.push(performance.now() - t)
  }
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)]
}

export async function run(emit: Emit): Promise<void> {
  // Registered values like a real run's: an env key, two gateway headers, an AWS session token.
  for (const v of ['sk-bench-Q7wT2pL9xV4mN8rK3bH6', 'gwtok-Ua4Jx9Pe2Rm7Wq5Nb8', 'apimkey-Cs3Ht8Lv1Xo6Kf9Dg2'])
    registerSecret(v)
  registerSecret('FwoGZXIvYXdzEBenchSessionTok9Qm2Wn7Rb4')
  for (const [label, every] of [
    ['plain', 0],
    ['escapes-1-in-10', 10],
    ['escapes-every-string', 1],
  ] as const) {
    const r = report(every)
    const stringify = timeMs(() => JSON.stringify(r, null, 2))
    const scrub = timeMs(() => scrubDeep(r))
    emit(`scrub.${label}.ms`, scrub, `${VERDICTS} verdicts, median of 5`)
    emit(
      `scrub.${label}.vs-stringify`,
      scrub / stringify,
      `scrubDeep / JSON.stringify(report, null, 2) = ${stringify.toFixed(1)} ms`,
    )
  }
}
