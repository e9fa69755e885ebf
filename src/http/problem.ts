import type { Response } from 'express';
import { ServiceError, type FieldProblem } from '../service/errors.js';

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
  unauthorized: (detail: string) => new ServiceError(401, 'unauthorized', 'Unauthorized', detail),
  notFound: (path: string) => new ServiceError(404, 'not_found', 'Not found', `no operation at ${path}`),
  methodNotAllowed: (method: string, allowed: string[]) =>
    new ServiceError(405, 'method_not_allowed', 'Method not allowed', `${method} is not allowed here; use ${allowed.join(' or ')}`),
  unsupportedMediaType: (detail: string) => new ServiceError(415, 'unsupported_media_type', 'Unsupported media type', detail),
  payloadTooLarge: (limit: number) =>
    new ServiceError(413, 'payload_too_large', 'Payload too large', `the request body exceeds the limit of ${limit} bytes`),
  invalidJson: (detail: string) => new ServiceError(400, 'invalid_json', 'Invalid JSON', detail),
  invalidRequest: (errors: FieldProblem[], detail: string) =>
    new ServiceError(400, 'invalid_request', 'Invalid request', detail, errors),
  rateLimited: (retryAfterSeconds: number) =>
    new ServiceError(429, 'rate_limited', 'Too many requests', `rate limit exceeded for this token; retry after ${retryAfterSeconds} s`),
  internal: () => new ServiceError(500, 'internal', 'Internal server error', 'an unexpected error occurred; it has been logged'),
};
