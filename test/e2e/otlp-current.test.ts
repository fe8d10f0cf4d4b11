// Issue 38: `agent-verdict receive` fed by the OTLP exporters of OpenTelemetry JS 0.300+ (SDK 3.x), as a user
// starting a project today has them: the receiver is the built package's CLI, and it and the agent process run on
// the current runtime (runtime.ts). The default runtime (Node 20) cannot install OTel 3 (Node 22.15+): there,
// test/trace/receiver/exporters.test.ts holds the same for the 0.2xx exporters.
import { spawn } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { loadTraceFile } from '../../src/trace/load'
import { spanToJSON } from '../../src/trace/span-json'
import { e2eEnv, e2eNode, runtimeHas } from './runtime'
import { makeProject, run, usePackageUnderTest } from './user-project'
import type { Trace } from '../../src/trace/trace'
import { type DumpedSpan, inMemoryTraces } from '../helpers/dumped-spans'

const OTEL3 = [
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-trace-otlp-proto',
]

const cleanup: string[] = []

const pkg = usePackageUnderTest()

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!runtimeHas('@opentelemetry/exporter-trace-otlp-http'))(
  'OTel JS 0.300+ exporters → agent-verdict receive (current runtime only)',
  () => {
    it('JSON (exporter-trace-otlp-http, gzip) and protobuf (exporter-trace-otlp-proto): every trace written whole, equal to what the SDK recorded', async () => {
      const project = makeProject('otlp-current', pkg.dir, OTEL3)
      cleanup.push(project)
      const receiver = spawn(
        e2eNode(),
        [join(project, 'node_modules/agent-verdict/bin/agent-verdict.js'), 'receive', '--port', '0', '--out', 'traces'],
        { cwd: project, env: e2eEnv({ PATH: process.env.PATH, HOME: process.env.HOME }) },
      )
      let stdout = ''
      let stderr = ''
      const waiting: Array<() => void> = []
      receiver.stdout.on('data', (d: Buffer) => {
        stdout += d.toString()
        for (const check of [...waiting]) check()
      })
      receiver.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      const exited = new Promise<number | null>((resolve) => receiver.on('close', resolve))
      // Also when the test fails or times out: a receiver left running would hold its port and CPU past the run.
      onTestFinished(() => {
        if (receiver.exitCode === null && receiver.signalCode === null) receiver.kill('SIGKILL')
      })
      /** Resolves once the receiver's stdout so far satisfies `ready` (or fails if the receiver ends first). */
      const stdoutUntil = <T>(ready: (text: string) => T | undefined) =>
        new Promise<T>((resolve, reject) => {
          const check = () => {
            const value = ready(stdout)
            if (value !== undefined) resolve(value)
          }
          waiting.push(check)
          void exited.then((code) => reject(new Error(`receive ended (${code}) early:\n${stdout}\n${stderr}`)))
          check()
        })
      const url = await stdoutUntil((text) => text.split('\n').find((l) => l.startsWith('http://')))
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

      const expected = new Map<string, Trace>()
      for (const [protocol, compression] of [
        ['json', 'gzip'],
        ['proto', 'none'],
      ]) {
        const agent = await run(project, ['export.mjs', protocol], {
          OTEL_EXPORTER_OTLP_ENDPOINT: url,
          OTEL_EXPORTER_OTLP_COMPRESSION: compression,
        })
        expect(agent.code, agent.output).toBe(0)
        const traces = inMemoryTraces(JSON.parse(agent.output) as DumpedSpan[])
        expect(traces.size).toBe(3)
        for (const [id, trace] of traces) expected.set(id, trace)
      }
      await stdoutUntil((text) => ((text.match(/ spans → /g) ?? []).length >= 6 ? true : undefined))
      receiver.kill('SIGTERM')
      expect(await exited, stderr).toBe(0)

      const files = readdirSync(join(project, 'traces'))
      expect(files.sort()).toEqual([...expected.keys()].map((id) => `${id}.json`).sort())
      for (const file of files) {
        const [trace] = await loadTraceFile(join(project, 'traces', file))
        const want = expected.get(trace.traceId)!
        // Depth-first order, parent ids and roots: the same tree; spanToJSON: ids, attributes, events, status, ns.
        expect(trace.spans.map(spanToJSON)).toEqual(want.spans.map(spanToJSON))
        expect(trace.roots.map((s) => s.id)).toEqual(want.roots.map((s) => s.id))
      }
      const all = [...expected.values()].flatMap((t) => t.spans)
      expect(all.some((s) => s.status === 'error' && s.events.some((e) => e.name === 'exception'))).toBe(true)
    }, 120_000)
  },
)
