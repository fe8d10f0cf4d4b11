// One classifier for every provider: real SDK error objects in, the right JudgeError subclass out.
import { createServer } from 'node:net'
import {
  AccessDeniedException,
  InternalServerException,
  ModelTimeoutException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime'
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
} from 'openai'
import { describe, expect, it } from 'vitest'
import { classifyJudgeError, isRetryableStatus } from '../../src/judges/classify-error'
import {
  JudgeAbortError,
  JudgeAuthError,
  JudgeConfigError,
  JudgeError,
  JudgeRateLimitError,
  JudgeRequestError,
  JudgeServiceError,
  JudgeTimeoutError,
} from '../../src/judges/errors'

const ctx = { provider: 'openai', model: 'gpt-4.1' }
const h = (init: Record<string, string> = {}) => new Headers(init)
const meta = (httpStatusCode: number) => ({
  $metadata: { httpStatusCode, requestId: 'req-1', attempts: 1, totalRetryDelay: 0 },
})

describe('classifyJudgeError', () => {
  it.each([
    [
      'RateLimitError',
      new RateLimitError(429, { message: 'slow down' }, undefined, h({ 'retry-after': '2' })),
      JudgeRateLimitError,
      true,
    ],
    [
      'InternalServerError 500',
      new InternalServerError(500, { message: 'oops' }, undefined, h()),
      JudgeServiceError,
      true,
    ],
    ['InternalServerError 503', new InternalServerError(503, undefined, undefined, h()), JudgeServiceError, true],
    ['408', Object.assign(new Error('408 Request Timeout'), { status: 408 }), JudgeServiceError, true],
    ['ConflictError 409', new ConflictError(409, { message: 'lock' }, undefined, h()), JudgeServiceError, true],
    ['BadRequestError', new BadRequestError(400, { message: 'bad schema' }, undefined, h()), JudgeRequestError, false],
    ['NotFoundError', new NotFoundError(404, { message: 'model not found' }, undefined, h()), JudgeRequestError, false],
    [
      'AuthenticationError',
      new AuthenticationError(401, { message: 'bad key' }, undefined, h()),
      JudgeAuthError,
      false,
    ],
    ['APIConnectionError', new APIConnectionError({ message: 'Connection error.' }), JudgeServiceError, true],
    ['APIConnectionTimeoutError', new APIConnectionTimeoutError(), JudgeTimeoutError, true],
    ['APIUserAbortError', new APIUserAbortError(), JudgeAbortError, false],
    [
      'ThrottlingException',
      new ThrottlingException({ message: 'Too many requests', ...meta(429) }),
      JudgeRateLimitError,
      true,
    ],
    [
      'ServiceUnavailableException',
      new ServiceUnavailableException({ message: 'unavailable', ...meta(503) }),
      JudgeServiceError,
      true,
    ],
    [
      'InternalServerException',
      new InternalServerException({ message: 'internal', ...meta(500) }),
      JudgeServiceError,
      true,
    ],
    [
      'ModelTimeoutException',
      new ModelTimeoutException({ message: 'model timed out', ...meta(408) }),
      JudgeTimeoutError,
      true,
    ],
    [
      'ValidationException',
      new ValidationException({ message: 'bad model id', ...meta(400) }),
      JudgeRequestError,
      false,
    ],
    ['AccessDeniedException', new AccessDeniedException({ message: 'no access', ...meta(403) }), JudgeAuthError, false],
    [
      'undici socket error',
      Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      }),
      JudgeServiceError,
      true,
    ],
    [
      'ECONNRESET renamed by smithy',
      Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET' }),
      JudgeServiceError,
      true,
    ],
    [
      'smithy request timeout',
      Object.assign(new Error('request timed out'), { name: 'TimeoutError' }),
      JudgeTimeoutError,
      true,
    ],
    ['DOM AbortError', new DOMException('This operation was aborted', 'AbortError'), JudgeAbortError, false],
    ['missing region', new Error('Region is missing'), JudgeConfigError, false],
    [
      'http2 stream cancelled by a reset',
      Object.assign(new Error('The pending stream has been canceled'), {
        code: 'ERR_HTTP2_STREAM_CANCEL',
        cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      }),
      JudgeServiceError,
      true,
    ],
    [
      'unknown host (wrong region or offline)',
      Object.assign(new Error('The pending stream has been canceled'), {
        code: 'ERR_HTTP2_STREAM_CANCEL',
        cause: Object.assign(new Error('getaddrinfo ENOTFOUND bedrock-runtime.xx-1.amazonaws.com'), {
          code: 'ENOTFOUND',
        }),
      }),
      JudgeError,
      false,
    ],
  ])('%s', (_, err, type, retryable) => {
    const judged = classifyJudgeError(err, ctx)
    expect(judged).toBeInstanceOf(type)
    expect(judged.retryable).toBe(retryable)
    expect(judged.provider).toBe('openai')
    expect(judged.model).toBe('gpt-4.1')
  })

  it('keeps the status and the retry-after of a rate limit', () => {
    const err = classifyJudgeError(
      new RateLimitError(429, { message: 'slow down' }, undefined, h({ 'retry-after-ms': '1500' })),
      ctx,
    )
    expect(err).toMatchObject({ status: 429, retryAfterMs: 1500 })
  })

  it('reads retry-after from a Bedrock error response', () => {
    const err = new ThrottlingException({ message: 'Too many requests', ...meta(429) })
    err.$response = { statusCode: 429, headers: { 'Retry-After': '2' }, body: undefined } as never
    expect(classifyJudgeError(err, { provider: 'bedrock', model: 'm' })).toMatchObject({ retryAfterMs: 2000 })
  })

  it('classifies a real ECONNREFUSED from fetch as a retryable connection error', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    const raw = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`).catch((e) => e)
    const err = classifyJudgeError(raw, ctx)
    expect(err).toBeInstanceOf(JudgeServiceError)
    expect(err.retryable).toBe(true)
    expect(err.message).toContain('ECONNREFUSED')
  })

  it('returns a JudgeError unchanged and wraps anything else as non-retryable', () => {
    const original = new JudgeRequestError('x', { ...ctx })
    expect(classifyJudgeError(original, ctx)).toBe(original)
    const unknown = classifyJudgeError(new RangeError('weird'), ctx)
    expect(unknown.constructor).toBe(JudgeError)
    expect(unknown.retryable).toBe(false)
    expect(unknown.cause).toBeInstanceOf(Error)
  })

  it('retry policy: 408/409/429/5xx yes, other 4xx no', () => {
    expect([408, 409, 429, 500, 502, 503, 504, 529].every(isRetryableStatus)).toBe(true)
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false)
  })
})
