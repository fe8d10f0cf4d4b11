// HTTP and timeout errors TRAIL lacks, recorded with the real OTel SDK the way instrumentations record them.
import { describe, expect, it } from 'vitest'
import { detect } from '../../../src/metrics/detectors/index'
import type { Finding } from '../../../src/metrics/detectors/finding'
import { recordRun, type Failure } from './otel-run'
import { spanText } from './trail'

/** One run: a chat call asks for `lookup`, the tool call fails as described. */
function failingTool(failure: Failure) {
  let ids = { chat: '', tool: '' }
  const trace = recordRun((run) => {
    const chat = run.chat(run.root, 'lookup', { order: 42 })
    const tool = run.tool(run.root, 'lookup', { order: 42 }, undefined, failure)
    run.end(tool)
    ids = { chat: chat.spanContext().spanId, tool: tool.spanContext().spanId }
  })
  return { trace, findings: detect(trace), ...ids }
}

function only(findings: Finding[]): Finding {
  expect(findings).toHaveLength(1)
  return findings[0]
}

describe('error status and exception events → TRAIL categories (OTel SDK spans)', () => {
  const cases: Array<[string, Failure, Finding['category'], RegExp]> = [
    ['401 from an exception', { exception: { name: 'AuthenticationError', message: '401 Incorrect API key provided: sk-…abcd' }, attributes: { 'http.response.status_code': 401 } }, 'Authentication Errors', /Incorrect API key/],
    ['403 from the status attribute alone', { attributes: { 'http.response.status_code': 403 } }, 'Authentication Errors', /^403$/],
    ['404 from the status message', { statusMessage: 'GET https://api.example.com/orders/42 returned 404 Not Found' }, 'Resource Not Found', /404 Not Found/],
    ['429 throttling', { exception: { name: 'RateLimitError', message: 'Rate limit reached for requests' }, attributes: { 'http.response.status_code': 429 } }, 'Rate Limiting', /RateLimitError|Rate limit reached/],
    ['500 with the older http.status_code', { statusMessage: 'Internal Server Error', attributes: { 'http.status_code': 500 } }, 'Service Errors', /Internal Server Error/],
    ['503 from error.type', { attributes: { 'error.type': '503' } }, 'Service Errors', /503/],
    ['a timeout exception', { exception: { name: 'TimeoutError', message: 'The operation was aborted due to timeout' } }, 'Timeout Issues', /aborted due to timeout/],
    ['DEADLINE_EXCEEDED (gRPC)', { statusMessage: '4 DEADLINE_EXCEEDED: Deadline exceeded after 30.001s' }, 'Timeout Issues', /DEADLINE_EXCEEDED/],
  ]

  it.each(cases)('%s', (_label, failure, category, evidence) => {
    const { trace, findings, tool } = failingTool(failure)
    const f = only(findings)
    expect(f).toMatchObject({ spanId: tool, category, detector: 'error-status' })
    expect(f.evidenceSpanId).toBeUndefined()
    expect(f.evidence).toMatch(evidence)
    expect(spanText(trace.get(tool)!)).toContain(f.evidence)
  })

  it('blames malformed tool-call arguments on the chat call that wrote them', () => {
    const { findings, chat, tool } = failingTool({ exception: { name: 'ToolInputError', message: 'Invalid JSON in tool call arguments: Unexpected token } at position 14' } })
    const f = only(findings)
    expect(f).toMatchObject({ spanId: chat, category: 'Formatting Errors', evidenceSpanId: tool })
    expect(f.reason).toContain('raised in TOOL execute_tool lookup')
  })

  it('names the tool, not its HTTP child span, when the request under a tool failed', () => {
    let toolId = ''
    const trace = recordRun((run) => {
      run.chat(run.root, 'fetch_page', { url: 'https://example.com/a' })
      const tool = run.tool(run.root, 'fetch_page', { url: 'https://example.com/a' }, undefined, { statusMessage: 'fetch failed' })
      run.http(tool, 'https://example.com/a', 503)
      run.end(tool)
      toolId = tool.spanContext().spanId
    })
    const f = only(detect(trace))
    expect(f).toMatchObject({ spanId: toolId, category: 'Service Errors' })
    expect(trace.get(f.evidenceSpanId!)!.name).toBe('GET')
  })

  it('flags a tool whose successful result is an error envelope', () => {
    let toolId = ''
    const trace = recordRun((run) => {
      run.chat(run.root, 'crm_lookup', { id: 7 })
      const tool = run.tool(run.root, 'crm_lookup', { id: 7 }, JSON.stringify({ error: { code: 403, message: 'Forbidden: token lacks scope crm.read' } }))
      run.end(tool)
      toolId = tool.spanContext().spanId
    })
    const f = only(detect(trace))
    expect(f).toMatchObject({ spanId: toolId, category: 'Authentication Errors', detector: 'tool-output', evidence: 'Forbidden: token lacks scope crm.read' })
  })

  it('reports nothing for a clean run, nor for a 4xx status that carries no category (400)', () => {
    const clean = recordRun((run) => {
      run.chat(run.root, 'lookup', { order: 1 })
      run.end(run.tool(run.root, 'lookup', { order: 1 }, '{"status":"shipped"}'))
    })
    expect(detect(clean)).toEqual([])
    const { findings } = failingTool({ attributes: { 'http.response.status_code': 400 } })
    expect(findings).toEqual([])
  })
})
