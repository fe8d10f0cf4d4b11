import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildReport, readReport, writeReport } from '../../src/report/artifact'
import { reportCommand } from '../../src/cli/report'
import { fixturePath, sampleTests } from '../report/cases'

function capture() {
  const out = { stdout: '', stderr: '' }
  return {
    out,
    io: { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) } },
  }
}

async function shards(dir: string) {
  const [a, b, c] = sampleTests()
  const one = await writeReport(
    join(dir, 'shard-1', 'agent-verdict-report.json'),
    buildReport({ tests: [a], startedAt: '2026-03-01T10:00:09Z', runner: 'vitest', judge: 'openai:m', mode: 'replay' }),
  )
  const two = await writeReport(
    join(dir, 'shard-2', 'agent-verdict-report.json'),
    buildReport({
      tests: [b, c],
      startedAt: '2026-03-01T10:00:01Z',
      runner: 'vitest',
      judge: 'openai:m',
      mode: 'replay',
    }),
  )
  return [one, two]
}

describe('agent-verdict report', () => {
  it('merge writes one validated report holding every shard’s tests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-cli-'))
    const { out, io } = capture()
    const code = await reportCommand(['merge', ...(await shards(dir)), '--out', join(dir, 'merged.json')], io)
    expect(code).toBe(0)
    const merged = await readReport(join(dir, 'merged.json'))
    expect(merged.tests).toHaveLength(3)
    expect(merged.run.totals.verdicts).toBe(9)
    expect(merged.run.startedAt).toBe('2026-03-01T10:00:01Z')
    expect(out.stdout).toContain('merged 2 reports (3 tests, 4 assertions, 3 failed, 9 verdicts)')
  })

  it("html renders a report, and never reads an image file the report names (only the run's own store)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-cli-'))
    const [one] = await shards(dir)
    // A real PNG where the report's image source points: a crafted report could name any file this way.
    copyFileSync(fixturePath('shapes.png'), join(dir, 'shard-1', 'shapes.png'))
    const { io } = capture()
    process.env.AGENT_VERDICT_IMAGE_CACHE = join(dir, 'empty-store')
    try {
      expect(await reportCommand(['html', one, '--out', join(dir, 'report.html')], io)).toBe(0)
    } finally {
      delete process.env.AGENT_VERDICT_IMAGE_CACHE
    }
    const html = readFileSync(join(dir, 'report.html'), 'utf8')
    expect(html).toContain('chart answer is grounded in the chart')
    expect(html).not.toContain('data:image/png;base64,')
    expect(html).toContain('(not embedded: the run kept no copy of this image')
  })

  it('exits 2 with a usage hint on bad arguments and with the cause on an unreadable report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-cli-'))
    let c = capture()
    expect(await reportCommand([], c.io)).toBe(2)
    expect(c.out.stderr).toContain('missing subcommand')
    expect(c.out.stderr).toContain('agent-verdict report --help')
    c = capture()
    expect(await reportCommand(['merge'], c.io)).toBe(2)
    c = capture()
    expect(await reportCommand(['html', 'a.json', 'b.json'], c.io)).toBe(2)
    c = capture()
    expect(await reportCommand(['merge', 'x.json', '--bogus'], c.io)).toBe(2)
    writeFileSync(join(dir, 'broken.json'), '{"schemaVersion": 1, "run": {}')
    c = capture()
    expect(await reportCommand(['merge', join(dir, 'broken.json')], c.io)).toBe(2)
    expect(c.out.stderr).toMatch(/cannot read report .*broken\.json/)
  })
})
