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

  it('lays out a test section only near the viewport, so a report of 10,000 verdicts opens in seconds', () => {
    // Measured in headless Chromium (npm run bench -- scale, report.html_10k.chromium_ms): 24 s to load without
    // it, 3.7 s with it; find-in-page and #verdict anchors still reach sections not yet laid out.
    const html = renderHtml(report(sampleTests()))
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? ''
    expect(style).toMatch(/section\.test\{[^}]*content-visibility:auto;contain-intrinsic-size:auto \d+px/)
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

const png = readFileSync(fixturePath('shapes.png'))
const digestOf = (b: Buffer) => createHash('sha256').update(b).digest('hex')
/** A store the run wrote (the matchers keep each judged image there under its sha256), set for `run`. */
async function withStore<T>(files: Record<string, Buffer>, run: () => Promise<T>): Promise<T> {
  const cache = mkdtempSync(join(tmpdir(), 'av-img-store-'))
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(cache, name), bytes)
  process.env.AGENT_VERDICT_IMAGE_CACHE = cache
  try {
    return await run()
  } finally {
    delete process.env.AGENT_VERDICT_IMAGE_CACHE
  }
}
/** The sample tests with their image's digest made the real one of shapes.png. */
const sampleWithRealDigest = (): ReportTest[] =>
  sampleTests().map((t) => ({
    ...t,
    verdicts: t.verdicts.map((v) => (v.image ? { ...v, image: { ...v.image, digest: digestOf(png) } } : v)),
  }))

describe('loadImageEmbeds / writeHtmlReport', () => {
  it('embeds the copy the run stored under the image digest, as a data URL of its exact bytes', async () => {
    const r = report(sampleWithRealDigest())
    const images = await withStore({ [`${digestOf(png)}.png`]: png }, () => loadImageEmbeds(r))
    const embed = images.get(digestOf(png))
    expect(embed && 'dataUrl' in embed).toBe(true)
    const dataUrl = (embed as { dataUrl: string }).dataUrl
    expect(dataUrl.startsWith('data:image/png;base64,')).toBe(true)
    expect(Buffer.from(dataUrl.split(',')[1], 'base64').equals(png)).toBe(true)
    const html = renderHtml(r, { images })
    expect(html).toContain(`<img data-image="i0" alt="png sha256:${digestOf(png).slice(0, 12)}…">`)
    expect(count(html, dataUrl)).toBe(1)
  })

  it('inlines each distinct image once, however many verdicts show it (content, not source, decides)', async () => {
    const gif = readFileSync(fileURLToPath(new URL('../fixtures/images/shapes.gif', import.meta.url)))
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

  // Issue 33, class 16: a crafted report names files on the machine; none may reach the page.
  it.each([
    ['an absolute path to a real PNG', () => fixturePath('shapes.png')],
    ['a relative path to a real PNG', () => 'shapes.png'],
    ['a file: URL to a real PNG', () => `file://${fixturePath('shapes.png')}`],
    ['a path climbing out of the project', () => '../../../../../../../../etc/passwd'],
    ['a remote URL', () => 'https://example.com/chart.png'],
  ])('a report naming %s embeds nothing and shows a placeholder', async (_, source) => {
    const tests: ReportTest[] = [
      {
        file: 't',
        name: 'n',
        state: 'pass',
        verdicts: [{ ...outputVerdicts()[0], image: { digest: digestOf(png), format: 'png', source: source() } }],
      },
    ]
    const r = report(tests)
    // The store is empty: the run kept nothing, so the named file must not be read.
    const html = await withStore({}, async () =>
      renderHtml(r, { images: await loadImageEmbeds(r, { baseDir: fixturesDir }), baseDir: fixturesDir }),
    )
    expect(html).not.toContain(';base64,')
    expect(html).not.toContain(png.toString('base64').slice(0, 40))
    expect(html).toContain('<div class="image-ref">image png sha256:')
    expect(html).toContain('(not embedded: the run kept no copy of this image')
  })

  it('a stored copy whose bytes do not hash to the digest, or over the cap, is not embedded, and says why', async () => {
    const gif = readFileSync(fileURLToPath(new URL('../fixtures/images/shapes.gif', import.meta.url)))
    const forged = 'd'.repeat(64)
    const tests: ReportTest[] = [
      {
        file: 't',
        name: 'n',
        state: 'pass',
        verdicts: [
          { ...outputVerdicts()[0], image: { digest: forged, format: 'png', source: 'chart.png' } },
          { ...outputVerdicts()[0], image: { digest: digestOf(gif), format: 'gif' } },
        ],
      },
    ]
    const images = await withStore({ [`${forged}.png`]: png, [`${digestOf(gif)}.gif`]: gif }, () =>
      loadImageEmbeds(report(tests), { maxBytes: 100 }),
    )
    expect(images.get(forged)).toEqual({ skipped: expect.stringMatching(/over the 100-byte cap/) })
    const unlimited = await withStore({ [`${forged}.png`]: png }, () => loadImageEmbeds(report(tests)))
    expect(unlimited.get(forged)).toEqual({ skipped: 'the stored copy does not match the image digest' })
  })

  it('accepts a data URL source only when its bytes hash to the digest and are the image type it claims', async () => {
    const ok = `data:image/png;base64,${png.toString('base64')}`
    const lying = `data:image/gif;base64,${png.toString('base64')}`
    const verdict = (source: string, digest: string) => ({
      ...outputVerdicts()[0],
      image: { digest, format: 'png', source },
    })
    const tests: ReportTest[] = [
      { file: 't', name: 'ok', state: 'pass', verdicts: [verdict(ok, digestOf(png))] },
      { file: 't', name: 'lying', state: 'pass', verdicts: [verdict(lying, 'e'.repeat(64))] },
      { file: 't', name: 'other digest', state: 'pass', verdicts: [verdict(ok, 'f'.repeat(64))] },
    ]
    const images = await withStore({}, () => loadImageEmbeds(report(tests)))
    expect(images.get(digestOf(png))).toEqual({ dataUrl: ok })
    expect(images.get('e'.repeat(64))).toEqual({ skipped: 'data URL bytes do not match the image digest' })
    expect(images.get('f'.repeat(64))).toEqual({ skipped: 'data URL bytes do not match the image digest' })
  })

  it('writes the HTML file with the images embedded', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'av-html-')), 'sub', 'report.html')
    const written = await withStore({ [`${digestOf(png)}.png`]: png }, () =>
      writeHtmlReport(out, report(sampleWithRealDigest()), { baseDir: fixturesDir }),
    )
    expect(written).toBe(out)
    const html = readFileSync(out, 'utf8')
    expect(html).toContain('<img data-image="i0"')
    expect(count(html, 'data:image/png;base64,')).toBe(1)
    expect(html).toContain('Authentication Errors')
  })
})
