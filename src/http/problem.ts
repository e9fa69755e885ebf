import type { Response } from 'express';
import { ServiceError, type FieldProblem } from '../service/errors.js';

/** The field path of problems with the body as a whole. */
const BODY = '(body)';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** An RFC 9457 problem document as this API sends it (api.md, "Errors"). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  errors: FieldProblem[];
}

export function toProblem(err: ServiceError): Problem {
  return {
    type: 'about:blank',
    title: err.title,
    status: err.status,
    code: err.code,
    detail: err.detail ?? err.title,
    errors: err.errors ?? [],
  };
}

export function sendProblem(res: Response, err: ServiceError): void {
  res.status(err.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(toProblem(err)));
}

/** Errors raised by the HTTP layer itself (the service raises the rest). */
export const httpErrors = {
  unauthorized: (detail: string) => new ServiceError(401, 'unauthorized', 'Unauthorized', detail, [{ path: 'x-api-token', message: detail }]),
  notFound: (path: string) =>
    new ServiceError(404, 'not_found', 'Not found', `no operation at ${path.slice(0, 200)}`, [{ path: '(url)', message: 'no such operation' }]),
  methodNotAllowed: (method: string, allowed: string[]) =>
    new ServiceError(405, 'method_not_allowed', 'Method not allowed', `${method} is not allowed here; use ${allowed.join(' or ')}`, [
      { path: '(method)', message: `must be ${allowed.join(' or ')}` },
    ]),
  unsupportedMediaType: (detail: string, header = 'Content-Type') =>
    new ServiceError(415, 'unsupported_media_type', 'Unsupported media type', detail, [{ path: header, message: detail }]),
  payloadTooLarge: (limit: number) =>
    new ServiceError(413, 'payload_too_large', 'Payload too large', `the request body exceeds the limit of ${limit} bytes`, [
      { path: BODY, message: `must be at most ${limit} bytes` },
    ]),
  invalidJson: (detail: string) => new ServiceError(400, 'invalid_json', 'Invalid JSON', detail, [{ path: BODY, message: detail }]),
  /** The body could not be read at all (broken compression, client gone). */
  invalidBody: (detail: string) => new ServiceError(400, 'invalid_request', 'Invalid request', detail, [{ path: BODY, message: detail }]),
  requestTimeout: (ms: number) =>
    new ServiceError(408, 'request_timeout', 'Request timeout', `the request body did not arrive within ${ms / 1000} s`, [
      { path: BODY, message: `must arrive within ${ms / 1000} s` },
    ]),
  tooManyLargeBodies: (max: number) =>
    new ServiceError(429, 'rate_limited', 'Too many requests', `this token already has ${max} large bodies in flight; retry once one has arrived`, [
      { path: BODY, message: `at most ${max} bodies over 1 MiB at a time per token` },
    ]),
  invalidRequest: (errors: FieldProblem[], detail: string) =>
    new ServiceError(400, 'invalid_request', 'Invalid request', detail, errors),
  rateLimited: (retryAfterSeconds: number, who: 'token' | 'client address' = 'token') =>
    new ServiceError(429, 'rate_limited', 'Too many requests', `rate limit exceeded for this ${who}; retry after ${retryAfterSeconds} s`, [
      { path: who === 'token' ? 'x-api-token' : '(client address)', message: `retry after ${retryAfterSeconds} s` },
    ]),
  internal: () => new ServiceError(500, 'internal', 'Internal server error', 'an unexpected error occurred; it has been logged'),
};
