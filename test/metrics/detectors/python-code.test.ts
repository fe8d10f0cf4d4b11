// The text helpers the behaviour detectors share, pinned to the regexes they replace (hand-written scans
// for speed must match them exactly, on the tricky inputs too).
import { describe, expect, it } from 'vitest'
import { codeCalls, escapeRegExp, hasWord, stripPythonStrings } from '../../../src/metrics/detectors/python-code'
import { announcedNotCalled } from '../../../src/metrics/detectors/announced-call'

// The definition stripPythonStrings implements: literals (triple-quoted first) and comments, emptied.
const PY_STRINGS = /"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*/g
const byRegex = (code: string) =>
  code.replace(PY_STRINGS, (m) =>
    m.startsWith('#') ? '' : m.startsWith('"""') || m.startsWith("'''") ? m.slice(0, 3).repeat(2) : m[0].repeat(2),
  )

const TRICKY_CODE = [
  'print("ask search_agent(x)")  # search_agent(',
  'task = (\n    "Find the 2018 study. "\n    "Which model?"\n)\nsearch_agent(task=task)',
  'x = "unterminated\nsearch_agent(1)',
  'x = "a\\"b" + \'c\\\'d\' + "e\\\\" + f(1)',
  'x = """multi\nline "quoted" # not a comment\n""" + g(2)',
  "y = '''never closed\nh(3)",
  'z = "esc at end\\',
  'w = "esc before newline\\\nk(4)"',
  'v = "cr\\\r" + "bare\rcr" + "ls\u2028sep"',
  '"""""" + \'\' + "" + # trailing',
  '# only a comment',
  'no literals at all(1)',
  '"#" + \'#\' + "\'" + \'"\' # "quote in comment',
]

describe('stripPythonStrings', () => {
  it('empties literals and drops comments', () => {
    expect(stripPythonStrings('print("ask search_agent(x)")  # search_agent(')).toBe('print("")  ')
    expect(stripPythonStrings('a = """x\n"y"\n""" + \'\'\'z\'\'\'')).toBe('a = """""" + \'\'\'\'\'\'')
  })

  it('leaves a quote that opens no literal on its line as it is', () => {
    expect(stripPythonStrings('x = "no end\nf(1) # c')).toBe('x = "no end\nf(1) ')
  })

  it.each(TRICKY_CODE)('matches the literal/comment regex on %j', (code) => {
    expect(stripPythonStrings(code)).toBe(byRegex(code))
  })
})

describe('codeCalls', () => {
  const byRegexCalls = (code: string, name: string) =>
    new RegExp(String.raw`(?<![\w.])${escapeRegExp(name)}\s*\(`).test(byRegex(code))

  it('finds calls outside strings and comments only', () => {
    expect(codeCalls('search_agent(task="x")', 'search_agent')).toBe(true)
    expect(codeCalls('print("search_agent(x)")', 'search_agent')).toBe(false)
    expect(codeCalls('team.search_agent(x)', 'search_agent')).toBe(false)
    expect(codeCalls('my_search_agent(x)', 'search_agent')).toBe(false)
    expect(codeCalls('search_agent # no call', 'search_agent')).toBe(false)
  })

  it('counts a call whose parenthesis follows a comment (the comment is removed before the test)', () => {
    expect(codeCalls('r = [search_agent  # ask it\n  (task)]', 'search_agent')).toBe(true)
  })

  it.each(TRICKY_CODE)('agrees with the regex over the stripped code on %j', (code) => {
    for (const name of ['search_agent', 'f', 'g', 'h', 'k', 'print', 'a.b'])
      expect(codeCalls(code, name)).toBe(byRegexCalls(code, name))
  })
})

describe('hasWord', () => {
  it.each([
    ['ask search_agent now', 'search_agent'],
    ['my_search_agent', 'search_agent'],
    ['search_agent2', 'search_agent'],
    ['(search_agent)', 'search_agent'],
    ['a -x- b', '-x-'],
    ['a-x-b', '-x-'],
    ['x.y', 'x.y'],
    ['', 'a'],
    ['abc', ''],
  ])('%j contains %j as \\b-delimited word exactly when the regex says so', (text, word) => {
    expect(hasWord(text, word)).toBe(new RegExp(String.raw`\b${escapeRegExp(word)}\b`).test(text))
  })
})

describe('announcedNotCalled', () => {
  it('finds an announcement far after an earlier, plain mention of the name', () => {
    // The scan starts shortly before the first mention; the announcement comes 300+ characters later.
    const thought = `search_agent found nothing last time. ${'More context. '.repeat(25)}I will ask search_agent to look it up.`
    expect(announcedNotCalled(thought, 'print(1)', 'search_agent')).toBe(thought.indexOf('I will ask'))
  })

  it('finds the longest announcement the intent pattern allows before the name (161 characters)', () => {
    // "I am going to" (13) + 80 characters + "delegate" (8) + 60 characters, then the name: the scan for the
    // intent starts that far before the first mention, and not one character later.
    const announcement = `I am going to ${'x'.repeat(78)} delegate ${'y'.repeat(58)} search_agent now.`
    const thought = `${'Filler sentence. '.repeat(12)}${announcement}`
    expect(thought.indexOf('search_agent') - thought.indexOf('I am going to')).toBe(161)
    expect(announcedNotCalled(thought, 'print(1)', 'search_agent')).toBe(thought.indexOf('I am going to'))
  })

  it('finds an announcement that starts well before the mention', () => {
    const thought = `Let me now carefully ${'re'.repeat(20)}consider and then ask the team member named search_agent.`
    expect(announcedNotCalled(thought, 'print(1)', 'search_agent')).toBe(0)
    expect(announcedNotCalled(thought, 'search_agent(task="x")', 'search_agent')).toBeUndefined()
  })
})
