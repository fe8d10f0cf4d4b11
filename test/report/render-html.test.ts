import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildReport } from '../../src/report/artifact'
import { loadImageEmbeds, writeHtmlReport } from '../../src/report/html-report'
import { displaySource, renderHtml, type ImageEmbed } from '../../src/report/render-html'
import type { ReportTest } from '../../src/verdict/report'
import { fixturePath, outputVerdicts, sampleTests, trail } from './cases'

const report = (tests: ReportTest[]) =>
  buildReport({
    tests,
    startedAt: '2026-03-01T10:00:00Z',
    runner: 'vitest',
    judge: 'openai:gpt-4.1-mini',
    mode: 'auto',
  })
const count = (text: string, needle: string) => text.split(needle).length - 1
const fixturesDir = dirname(fixturePath('shapes.png'))

describe('renderHtml', () => {
  it('is one self-contained document: CSP forbids fetching, no external references', () => {
    const html = renderHtml(report(sampleTests()))
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).toContain(`content="default-src 'none'; img-src data:;`)
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
    expect(html).not.toMatch(/<link|@import|url\(/)
    expect(count(html, '<script>')).toBe(1)
  })

  it('escapes test names, reasons, evidence and ids — a <script> in a reason stays text', () => {
    const evil = '<script>alert("pwned")</script>'
    const v = {
      ...outputVerdicts()[0],
      id: 'x" onmouseover="alert(1)',
      reason: `reason ${evil}`,
      evidence: `<img src=x onerror=alert(1)>`,
      category: '<b>cat</b>',
    }
    const html = renderHtml(
      report([{ file: 'a<b>.test.ts', name: `name ${evil}`, state: 'fail', error: evil, verdicts: [v] }]),
    )
    expect(count(html, '<script>')).toBe(1) // only the report's own toggle script
    expect(html).not.toContain(evil)
    expect(html).toContain('reason &lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;')
    expect(html).toContain('name &lt;script&gt;')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(html).toContain('id="verdict-x&quot; onmouseover=&quot;alert(1)"')
    expect(html).not.toContain('<b>cat</b>')
  })

  it('renders the span tree with failing spans highlighted and their verdicts attached', () => {
    const html = renderHtml(report([sampleTests()[2]]))
    expect(count(html, '<li class="span">') + count(html, '<li class="span failed">')).toBe(trail.spans.length)
    // The six gold spans plus their ancestors fail under the existential policy.
    const failed = report([sampleTests()[2]]).tests[0].traces![0].spans.filter((s) => s.failed).length
    expect(count(html, '<li class="span failed">')).toBe(failed)
    expect(count(html, '<ul')).toBe(count(html, '</ul>'))
    expect(count(html, '<li')).toBe(count(html, '</li>'))
    const visit = html.slice(html.indexOf('<span class="name">VisitTool</span>'))
    expect(visit.slice(0, 600)).toMatch(/<li class="span-verdict fail">.*Authentication Errors/)
    // The same numbers as the terminal: 6 failing spans, 8 ancestors marked by propagation.
    expect(html).toContain('<summary>trace 21f0c6c8… · 32 spans · 6 failing · 8 above them by propagation</summary>')
  })

  it('counts assertions: a passing .not is green with the judge\'s verdict noted, and "failed" is 0', () => {
    const [judgedFail] = outputVerdicts()
    const v = {
      ...judgedFail,
      assertion: { id: 'toBeFaithfulToImage#1', matcher: 'toBeFaithfulToImage', negated: true, passed: true },
    }
    const html = renderHtml(report([{ file: 'a', name: 'b', state: 'pass', verdicts: [v] }]))
    expect(html).toContain(
      '<tr class="verdict pass" id="verdict-v-faith"><td class="sym pass" title="judged fail, expected not">✓</td>',
    )
    expect(html).toContain('<div class="expected">judged fail, expected not — the assertion passed</div>')
    expect(html).toMatch(/<th>failed<\/th>.*<\/tr>\n<tr><td>1<\/td><td>0<\/td>/)
    expect(html).toContain('<section class="test state-pass">')
  })

  it('shows an image by its digest when it is not embedded', () => {
    const html = renderHtml(report([sampleTests()[0]]))
    expect(html).toContain(`image png sha256:${'a'.repeat(12)}… from <code>shapes.png</code>`)
    expect(html).not.toContain('<img')
  })

  it('puts only data:image URLs into src, whatever the embed map says', () => {
    const images = new Map<string, ImageEmbed>([['shapes.png', { dataUrl: 'javascript:alert(1)' }]])
    const html = renderHtml(report([sampleTests()[0]]), { images })
    expect(html).not.toContain('javascript:')
    expect(html).not.toContain('<img')
  })
})

describe('loadImageEmbeds / writeHtmlReport', () => {
  it('embeds a readable local image as a data URL of its exact bytes', async () => {
    const images = await loadImageEmbeds(report(sampleTests()), { baseDir: fixturesDir })
    const embed = images.get('shapes.png')
    expect(embed && 'dataUrl' in embed).toBe(true)
    const dataUrl = (embed as { dataUrl: string }).dataUrl
    expect(dataUrl.startsWith('data:image/png;base64,')).toBe(true)
    expect(Buffer.from(dataUrl.split(',')[1], 'base64').equals(readFileSync(fixturePath('shapes.png')))).toBe(true)
    const html = renderHtml(report(sampleTests()), { images })
    expect(html).toContain('<img data-image="i0" alt="png sha256:aaaaaaaaaaaa…">')
    expect(count(html, dataUrl)).toBe(1)
  })

  it('inlines each distinct image once, however many verdicts show it (content, not source, decides)', async () => {
    const png = readFileSync(fixturePath('shapes.png'))
    const gif = readFileSync(fileURLToPath(new URL('../fixtures/images/shapes.gif', import.meta.url)))
    const digestOf = (b: Buffer) => createHash('sha256').update(b).digest('hex')
    const cache = mkdtempSync(join(tmpdir(), 'av-img-cache-'))
    // Kept by the matchers under their digest, as a Buffer image would be.
    writeFileSync(join(cache, `${digestOf(png)}.png`), png)
    writeFileSync(join(cache, `${digestOf(gif)}.gif`), gif)
    const withImage = (b: Buffer, format: string, source?: string) => ({
      ...outputVerdicts()[0],
      image: { digest: digestOf(b), format, ...(source ? { source } : {}) },
    })
    const tests: ReportTest[] = Array.from({ length: 12 }, (_, i) => ({
      file: 't',
      name: `n${i}`,
      state: 'pass' as const,
      verdicts: [
        withImage(png, 'png', i % 2 ? 'Buffer (1234 bytes)' : '/home/someone/secret-project/chart.png'),
        withImage(gif, 'gif'),
      ],
    }))
    process.env.AGENT_VERDICT_IMAGE_CACHE = cache
    try {
      const r = report(tests)
      const html = renderHtml(r, {
        images: await loadImageEmbeds(r, { baseDir: '/work/project' }),
        baseDir: '/work/project',
      })
      expect(count(html, `data:image/png;base64,${png.toString('base64')}`)).toBe(1)
      expect(count(html, `data:image/gif;base64,${gif.toString('base64')}`)).toBe(1)
      expect(count(html, '<img data-image="i0"')).toBe(12)
      expect(count(html, '<img data-image="i1"')).toBe(12)
      // An absolute path outside the project shows as its file name only.
      expect(html).not.toContain('/home/someone')
      expect(html).toContain('chart.png · png sha256:')
    } finally {
      delete process.env.AGENT_VERDICT_IMAGE_CACHE
    }
  })

  it('shows local paths relative to the project root, or by file name outside it', () => {
    expect(displaySource('/work/project/test/fixtures/chart.png', '/work/project')).toBe('test/fixtures/chart.png')
    expect(displaySource('file:///work/project/chart.png', '/work/project')).toBe('chart.png')
    expect(displaySource('/etc/secret/chart.png', '/work/project')).toBe('chart.png')
    expect(displaySource('file:///home/me/chart.png')).toBe('chart.png')
    expect(displaySource('C:\\Users\\me\\chart.png')).toBe('chart.png')
    expect(displaySource('https://example.com/chart.png')).toBe('https://example.com/chart.png')
    expect(displaySource('shapes.png', '/work/project')).toBe('shapes.png')
  })

  it('does not embed images over the cap, remote URLs, missing files or non-images, and says why', async () => {
    const withSource = (source: string) => ({
      ...outputVerdicts()[0],
      image: { digest: 'b'.repeat(64), format: 'png', source },
    })
    const tests: ReportTest[] = [
      {
        file: 't',
        name: 'n',
        state: 'pass',
        verdicts: [
          'shapes.png',
          'https://example.com/chart.png',
          'missing.png',
          'trail-gia-21f0c6c8.json',
          'trail-gaia-21f0c6c8.json',
        ].map(withSource),
      },
    ]
    const images = await loadImageEmbeds(report(tests), { baseDir: fixturesDir, maxBytes: 1000 })
    expect(images.get('shapes.png')).toEqual({ skipped: expect.stringMatching(/over the 1000-byte cap/) })
    expect(images.get('https://example.com/chart.png')).toEqual({ skipped: 'remote URL (the report never fetches)' })
    expect(images.get('missing.png')).toEqual({ skipped: 'file not readable' })
    expect(images.get('trail-gaia-21f0c6c8.json')).toEqual({ skipped: expect.stringMatching(/over the|not a png/) })
    const html = renderHtml(report(tests), { images })
    expect(html).toContain('(not embedded: remote URL (the report never fetches))')
  })

  it('accepts a data URL source only when its bytes are the image type it claims', async () => {
    const png = readFileSync(fixturePath('shapes.png')).toString('base64')
    const ok = `data:image/png;base64,${png}`
    const lying = `data:image/gif;base64,${png}`
    const tests: ReportTest[] = [
      {
        file: 't',
        name: 'n',
        state: 'pass',
        verdicts: [ok, lying].map((source) => ({
          ...outputVerdicts()[0],
          image: { digest: 'c'.repeat(64), format: 'png', source },
        })),
      },
    ]
    const images = await loadImageEmbeds(report(tests))
    expect(images.get(ok)).toEqual({ dataUrl: ok })
    expect(images.get(lying)).toEqual({ skipped: 'data URL bytes do not match its image type' })
  })

  it('writes the HTML file with the images embedded', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'av-html-')), 'sub', 'report.html')
    expect(await writeHtmlReport(out, report(sampleTests()), { baseDir: fixturesDir })).toBe(out)
    const html = readFileSync(out, 'utf8')
    expect(html).toContain('<img data-image="i0"')
    expect(count(html, 'data:image/png;base64,')).toBe(1)
    expect(html).toContain('Authentication Errors')
  })
})
