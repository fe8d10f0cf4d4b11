// Issue 33, classes 6 and 8, as a table: each hostile row must come out without the key (in any decoded form),
// each control row must come out exactly as it went in. Registered-key rows must be redacted to the end: the text
// after the key survives.
import { describe, expect, it } from 'vitest'
import { scrubText } from '../../src/config/secrets'
import { leaksIn } from '../support/decoded-forms'

const KEY = 'sk-reg-Tb7Qw2/Lp9+Xv4=Mn8&Rk3'
const pct = (s: string, upper = true) =>
  [...s].map((c) => `%${c.charCodeAt(0).toString(16)[upper ? 'toUpperCase' : 'toLowerCase']()}`).join('')
const u = (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')

const HOSTILE: Array<[string, string, string]> = [
  ['JSON escape of the first char', `echo \\u0073${KEY.slice(1)}`, KEY],
  ['JSON escapes, upper-case hex, every char', `echo ${u(KEY).toUpperCase().replace(/\\U/g, '\\u')}`, KEY],
  ['JSON escapes mixed with literal chars', `echo ${[...KEY].map((c, i) => (i % 2 ? u(c) : c)).join('')}`, KEY],
  ['encodeURIComponent', `echo ${encodeURIComponent(KEY)}`, KEY],
  ['percent, lower-case hex, every char', `echo ${pct(KEY, false)}`, KEY],
  ['percent, only / + = &', `echo ${KEY.replace(/[/+=&]/g, (c) => pct(c))}`, KEY],
  ['form encoding (+ for space)', 'auth=Bearer+sk-reg-Tb7Qw2%2FLp9%2BXv4%3DMn8%26Rk3 done', KEY],
  ['HTML hex entity &#x2F; and &amp;', `echo ${KEY.replace('/', '&#x2F;').replace('&', '&amp;')}`, KEY],
  ['HTML decimal &#47; without ;', `echo ${KEY.replace('/', '&#47').replace('&', '&#38')}`, KEY],
  [
    'HTML named &sol; &plus; &equals; &amp',
    `echo ${KEY.replace('/', '&sol;').replace('+', '&plus;').replace('=', '&equals;').replace('&', '&amp')}`,
    KEY,
  ],
  ['percent-encoded HTML entities', `echo ${encodeURIComponent(KEY.replace('/', '&#x2F;'))}`, KEY],
  ['HTML-escaped JSON escapes', `echo ${u(KEY).replace(/\\/g, '&#92;')}`, KEY],
  ['JSON string in a URL in HTML', `echo ${encodeURIComponent(JSON.stringify(u(KEY))).replace(/%/g, '&#37;')}`, KEY],
  ['a key cut at & must be redacted to its end', `echo ${KEY.replace('&', '&amp;')} tail`, KEY],
  [
    'scheme word "token" before a GitHub token',
    '{"authorization":"token ghp_Tb0123456789abcdefghijABCDEFGHIJ01"}',
    'ghp_Tb0123456789abcdefghijABCDEFGHIJ01',
  ],
  ['Authorization: Basic', 'Authorization: Basic dGI6cGFzc3dvcmQxMjM0NTY3OA==', 'dGI6cGFzc3dvcmQxMjM0NTY3OA=='],
  ['bare "token <value>" in prose', 'use token 9f8e7d6c5b4a39281706f5e4 here', '9f8e7d6c5b4a39281706f5e4'],
  [
    'unregistered github_pat_',
    'pat github_pat_11ATB0123456789_abcdefghijklmnopqrstuvwx',
    'github_pat_11ATB0123456789_abcdefghijklmnopqrstuvwx',
  ],
  ['unregistered sk-ant-', 'key sk-ant-api03-Tb5Tk8Wn2Rb7Qm4Zx', 'sk-ant-api03-Tb5Tk8Wn2Rb7Qm4Zx'],
  ['unregistered Slack xoxb-', 'slack xoxb-123456789012-TbSlack9Kp3Ws7', 'xoxb-123456789012-TbSlack9Kp3Ws7'],
  ['unregistered Google AIza', 'g AIzaSyTb1234567890abcdefghijklmnopqrst', 'AIzaSyTb1234567890abcdefghijklmnopqrst'],
  ['unregistered sk- as JSON escapes', `k ${u('sk-proj-TbEsc7Hs2Vb9Qw4Zx')}`, 'sk-proj-TbEsc7Hs2Vb9Qw4Zx'],
  // Round 3 (gap 5): outer layers that mix families and cut through the inner escapes.
  ['JSON escapes with their \\ percent-encoded', `echo ${u(KEY).replace(/\\/g, '%5C')}`, KEY],
  ['JSON escapes with their u as an entity', `echo ${u(KEY).replace(/u/g, '&#117;')}`, KEY],
  ['JSON escapes: \\ as %5C and u as &#x75; in one layer', `echo ${u(KEY).replace(/\\u/g, '%5C&#x75;')}`, KEY],
  ['percent-encoding percent-encoded (%2573)', `echo ${encodeURIComponent(pct(KEY))}`, KEY],
  [
    'entities whose & is a JSON escape',
    `echo ${[...KEY].map((c) => `\\u0026#x${c.charCodeAt(0).toString(16)};`).join('')}`,
    KEY,
  ],
  [
    'JavaScript braced escapes \\u{73}',
    `echo ${[...KEY].map((c) => `\\u{${c.charCodeAt(0).toString(16)}}`).join('')}`,
    KEY,
  ],
  ['an entity cut by a percent escape (&#4%37; is &#47;)', `echo ${KEY.replace('/', '&#4%37;')}`, KEY],
  [
    'hex entities with leading zeros and X',
    `echo ${[...KEY].map((c) => `&#X000${c.charCodeAt(0).toString(16)};`).join('')}`,
    KEY,
  ],
  [
    'entities percent-encoded with lower-case hex',
    `echo ${pct([...KEY].map((c) => `&#${c.charCodeAt(0)};`).join(''), false)}`,
    KEY,
  ],
  [
    'first half twice encoded, second half once',
    `echo ${encodeURIComponent(u(KEY.slice(0, 12)))}${u(KEY.slice(12))}`,
    KEY,
  ],
  // Round 4 (per region): each piece or character written its own way; the per-layer decoder missed these.
  [
    '\\u0061 with its u written \\u0075 (\\ then \\u0075 then 0061)',
    `echo ${KEY.replace(/[a-z]/g, (c) => `\\\\u0075${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}`,
    KEY,
  ],
  [
    '\\x escapes with their x written \\x78',
    `echo ${KEY.replace(/[a-z]/g, (c) => `\\\\x78${c.charCodeAt(0).toString(16)}`)}`,
    KEY,
  ],
  [
    'first piece hex entities without ; joined to a piece that starts with hex letters',
    `echo ${[...KEY.slice(0, 9)].map((c) => `&#x${c.charCodeAt(0).toString(16)}`).join('')}${KEY.slice(9)}`,
    KEY,
  ],
  [
    'escape() %uXXXX then decimal entities without ;',
    `echo ${[...KEY.slice(0, 12)].map((c) => `%u00${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')}${[
      ...KEY.slice(12),
    ]
      .map((c) => `&#${c.charCodeAt(0)}`)
      .join(' ')
      .replace(/ /g, '')}`,
    KEY,
  ],
  [
    'first half JSON escapes with their u as \\u0075, second half percent with its % as &#37;',
    `echo ${u(KEY.slice(0, 12)).replace(/\\u/g, '\\\\u0075')}${pct(KEY.slice(12)).replace(/%/g, '&#37;')}`,
    KEY,
  ],
  [
    'each character its own stack: \\x78-escaped \\x, %-encoded \\u, entity, literal',
    `echo ${[...KEY]
      .map((c, i) => {
        const h = c.charCodeAt(0).toString(16).padStart(2, '0')
        return [`\\\\x78${h}`, `%5Cu00${h}`, `&#x${h};`, c][i % 4]
      })
      .join('')}`,
    KEY,
  ],
  // Class 8 shapes, written in ways no earlier row writes them.
  [
    'Bearer with a tab and the token as JSON escapes',
    `authorization: Bearer\t${u('sk-proj-TbTab7Hs2Vb9Qw4Zx')}`,
    'sk-proj-TbTab7Hs2Vb9Qw4Zx',
  ],
  [
    'token scheme with a percent-encoded space',
    'Authorization%3A%20token%20ghp_Tb0123456789abcdefghijABCDEFGHIJ02',
    'ghp_Tb0123456789abcdefghijABCDEFGHIJ02',
  ],
  ['x-api-key header dump as HTML', 'x-api-key&#58; Tbk-Gw7Hs2Vb9Qw4ZxLm3', 'Tbk-Gw7Hs2Vb9Qw4ZxLm3'],
  [
    'AWS session token header, JSON-escaped name',
    `{"\\u0078-amz-security-token":"FwoGZXIvYXdzETbSess7Hs2Vb9Qw4"}`,
    'FwoGZXIvYXdzETbSess7Hs2Vb9Qw4',
  ],
]

// Round 4 (per region), checked exactly: each piece or character of the key written its own way.
const h2 = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0')
const PER_REGION: Array<[string, string]> = [
  ['\\u with its u as \\u0075', [...KEY].map((c) => `\\\\u007500${h2(c)}`).join('')],
  ['\\x with its x as \\x78', [...KEY].map((c) => `\\\\x78${h2(c)}`).join('')],
  [
    'hex entities without ; then literal text starting with hex letters',
    `${[...'sk-reg-'].map((c) => `&#x${h2(c)}`).join('')}${KEY.slice(7)}`,
  ],
  ['first half \\u00XX, second half %XX', `${u(KEY.slice(0, 14))}${pct(KEY.slice(14))}`],
  [
    'first half entities, second half JSON escapes with their \\ as %5C',
    `${[...KEY.slice(0, 14)].map((c) => `&#${c.charCodeAt(0)};`).join('')}${u(KEY.slice(14)).replace(/\\/g, '%5C')}`,
  ],
  [
    'each character its own stack',
    [...KEY]
      .map(
        (c, i) =>
          [`\\\\x78${h2(c)}`, `%5Cu00${h2(c)}`, `&#x${h2(c)};`, c, `%25${h2(c)}`, `\\u0026#${c.charCodeAt(0)};`][i % 6],
      )
      .join(''),
  ],
]

const CONTROLS = [
  'A chart with 3 bars; the tallest is EMEA & the shortest APAC.',
  'see https://example.test/a?b=1&c=%20d&e=f#x and &amp; &lt;b&gt; \\n \\u00e9',
  'The basic usage is fine; a token limit of 2000 applies; tokens: 1,234.',
  'Path C:\\new\\table and 100% sure, 50%-off, &copy 2026',
  'risk-assessment and task-oriented sk-  short',
  'escapes of nothing secret: %5Cu0041 &#92;u0042 \\u0026amp; %2541 &#x26;#x43;',
  'a Windows path beside an escape: C:\\Users\\tb\\ \\u00e9t\u00e9 50% &amp more',
]

describe('scrubber table (issue 33, classes 6 and 8)', () => {
  it.each(HOSTILE)('%s: the key is gone in every decoded form', (_, text, secret) => {
    const out = scrubText(text, [KEY])
    expect(out).toContain('[redacted]')
    expect(leaksIn(out, secret), out).toBe(false)
    if (secret === KEY && text.startsWith('echo ')) expect(out).toMatch(/^echo \S*\[redacted\]/)
  })

  it.each(PER_REGION)('%s: redacted from the first character of the key to its last, nothing else', (_, written) => {
    expect(scrubText(`echo ${written} tail`, [KEY])).toBe('echo [redacted] tail')
  })

  it('the text around a key survives: redacted to the end of the key, not to the first &', () => {
    expect(scrubText(`echo ${KEY.replace('&', '&amp;')} tail`, [KEY])).toBe('echo [redacted] tail')
    expect(scrubText('{"authorization":"token ghp_Tb0123456789abcdefghijABCDEFGHIJ01"}', [])).toBe(
      '{"authorization":"token [redacted]"}',
    )
  })

  it.each(CONTROLS)('control, unchanged: %s', (text) => {
    expect(scrubText(text, [KEY])).toBe(text)
  })
})
