// The taxonomy lookup: which error text maps to which TRAIL category, and which rule wins when several match.
import { describe, expect, it } from 'vitest'
import {
  blankEchoedCode,
  classifyErrorText,
  ERROR_RULES,
  ruleForHttpStatus,
} from '../../../src/metrics/detectors/error-patterns'
import { quoteEvidence } from '../../../src/metrics/detectors/finding'
import { detectRepeatedCalls } from '../../../src/metrics/detectors/repeated-calls'
import { TRAIL_CATEGORIES } from '../../../src/taxonomy'
import { parseTrace } from '../../../src/trace/parse'
import { at, createRecorder, record } from '../../helpers/otel'

const category = (text: string) => classifyErrorText(blankEchoedCode(text))?.rule.category

describe('classifyErrorText', () => {
  it.each([
    // Messages as providers and frameworks word them.
    ['openai.AuthenticationError: Error code: 401 - invalid_api_key', 'Authentication Errors'],
    [
      'botocore UnrecognizedClientException: The security token included in the request is invalid',
      'Authentication Errors',
    ],
    ['HTTPError: 404 Client Error: Not Found for url: https://x.org/a.pdf', 'Resource Not Found'],
    ["FileNotFoundError: [Errno 2] No such file or directory: 'data/a.mp3'", 'Resource Not Found'],
    ['ThrottlingException: Rate exceeded', 'Rate Limiting'],
    ['litellm.RateLimitError: AnthropicException - {"type":"rate_limit_error"}', 'Rate Limiting'],
    [
      'litellm.InternalServerError: AnthropicError - {"type":"overloaded_error","message":"Overloaded"}',
      'Service Errors',
    ],
    ['502 Server Error: Bad Gateway for url: https://api.x.com', 'Service Errors'],
    ["('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))", 'Service Errors'],
    ['ReadTimeout: HTTPSConnectionPool(host=x, port=443): Read timed out. (read timeout=10)', 'Timeout Issues'],
    ['504 Gateway Timeout', 'Timeout Issues'],
    [
      "Code execution failed at line 'from Bio.PDB import PDBParser' due to: ModuleNotFoundError: No module named 'Bio'",
      'Environment Setup Errors',
    ],
    [
      "UnsupportedFormatException: Could not convert 'a.jsonld' to Markdown. The formats ['.jsonld'] are not supported.",
      'Environment Setup Errors',
    ],
    [
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
      'Resource Exhaustion',
    ],
    [
      'Error code: 429 - {"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}',
      'Resource Exhaustion',
    ],
    [
      'Error in code parsing:\nYour code snippet is invalid, because the regex pattern ```(?:py|python)?\\n(.*?)\\n``` was not found in it.',
      'Formatting Errors',
    ],
    ["PageDownTool.forward() got an unexpected keyword argument ''", 'Formatting Errors'],
    ['Code parsing failed on line 12 due to: SyntaxError\n    patch = """--- a/x.py', 'Formatting Errors'],
    ["Exception: No results found for query: 'x y z'. Use a less specific query.", 'Poor Information Retrieval'],
  ] as const)('%s → %s', (text, expected) => {
    expect(category(text)).toBe(expected)
  })

  it('ignores what the model wrote inside echoed code and tool arguments', () => {
    // The code mentions a timeout and a 404; the error is a KeyError, which has no category.
    expect(
      category("Code execution failed at line 'r = get(url, timeout=5); assert r.status != 404' due to: KeyError: 'x'"),
    ).toBeUndefined()
    expect(
      category(
        "Error when executing tool web_search with arguments {'query': 'rate limit 429 docs'}: KeyError: 'results'",
      ),
    ).toBeUndefined()
    // …but still sees the error after the echo.
    expect(category("Code execution failed at line 'x = f()' due to: TimeoutError: timed out")).toBe('Timeout Issues')
    const blanked = blankEchoedCode("failed at line 'abc' due to: E")
    expect(blanked).toHaveLength("failed at line 'abc' due to: E".length)
  })

  it('has no rule for errors outside the taxonomy (precision)', () => {
    expect(category('TypeError: cannot read properties of undefined')).toBeUndefined()
    expect(category('Error code: 400 - bad request')).toBeUndefined()
  })

  it('maps HTTP status codes, and every rule to a real TRAIL label', () => {
    expect([401, 403, 404, 408, 410, 429, 500, 503, 504].map((c) => ruleForHttpStatus(c)?.category)).toEqual([
      'Authentication Errors',
      'Authentication Errors',
      'Resource Not Found',
      'Timeout Issues',
      'Resource Not Found',
      'Rate Limiting',
      'Service Errors',
      'Service Errors',
      'Timeout Issues',
    ])
    expect(ruleForHttpStatus(400)).toBeUndefined()
    for (const rule of ERROR_RULES) expect(TRAIL_CATEGORIES).toContain(rule.category)
    expect(new Set(ERROR_RULES.map((r) => r.id)).size).toBe(ERROR_RULES.length)
  })
})

describe('quoteEvidence', () => {
  it('quotes the line that holds the match, verbatim', () => {
    const text = 'Traceback (most recent call last):\n  File "x.py", line 3\nTimeoutError: read timed out\n'
    expect(quoteEvidence(text, text.indexOf('timed out'))).toBe('TimeoutError: read timed out')
  })

  it('cuts long lines to 300 characters around the match, starting at a word', () => {
    const text = `${'lorem ipsum '.repeat(60)}ECONNRESET by peer ${'dolor sit '.repeat(60)}`
    const q = quoteEvidence(text, text.indexOf('ECONNRESET'))
    expect(q.length).toBeLessThanOrEqual(300)
    expect(q).toContain('ECONNRESET by peer')
    expect(text).toContain(q)
    expect(q.startsWith('lorem') || q.startsWith('ipsum')).toBe(true)
  })
})

describe('repeated tool calls in LLM outputs (runs without TOOL spans)', () => {
  it('flags the last of three consecutive chat calls requesting the same tool call', () => {
    // Case and whitespace differences are not a different call.
    const cities = [' Paris ', 'paris', 'PARIS', 'Lyon']
    const rec = createRecorder({ seed: 5 })
    record(rec.tracer, {
      name: 'invoke_agent weather',
      start: at(0),
      end: at(9000),
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
      children: cities.map((city, i) => ({
        name: 'chat gpt-4o-mini',
        start: at(100 + i * 1000),
        end: at(600 + i * 1000),
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', name: 'get_weather', arguments: { city } }] },
          ]),
        },
      })),
    })
    const trace = parseTrace(rec.otlpJson())
    const llms = trace.spansByKind('llm')
    const findings = detectRepeatedCalls(trace)
    expect(findings).toEqual([expect.objectContaining({ spanId: llms[2].id, category: 'Resource Abuse' })])
    expect(findings[0].reason).toMatch(/^3 consecutive model calls requested the same tool call \(get_weather\)/)
    expect(detectRepeatedCalls(trace, { includeLlmToolCalls: false })).toEqual([])
  })
})
