import { createRequire } from 'node:module';
import { z } from 'zod';
import type { Operation } from './operation.js';
import { bodyLimitOf, DEFAULT_BODY_LIMIT } from './body/body-limits.js';
import { TOKEN_HEADER } from './auth.js';
import { metricsQuerySchema } from './schemas/metrics.js';
import { uploadJsonSchema, uploadQuerySchema, uploadResponseSchema } from './schemas/flaky-tests.js';
import { problemSchema } from './schemas/responses.js';

type JsonSchema = Record<string, unknown>;

/** Statuses every authenticated POST operation may answer. */
const COMMON_POST_ERRORS = [400, 401, 408, 413, 415, 429];
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_request (every field problem in `errors`), invalid_json, invalid_page_token or invalid_junit',
  401: 'unauthorized: the token is missing, unknown or revoked',
  403: 'forbidden: the repository (or org_url_slug) does not belong to the token\'s organization',
  404: 'queue_not_found, pull_request_not_found or test_case_not_found',
  409: 'queue_exists, queue_not_empty, queue_not_accepting or invalid_state',
  408: 'request_timeout: the body did not arrive in time',
  413: 'payload_too_large: the body exceeds the limit of the operation',
  415: 'unsupported_media_type: the body is not application/json in UTF-8',
  429: 'rate_limited: too many requests, or too many large bodies in flight for this token; see the Retry-After header',
  503: 'not_ready: the store does not answer',
};

/** A JSON Schema of what a client sends (`input`) or receives (`output`), for OpenAPI 3.1. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' });
  return rest;
}

function problemResponses(statuses: number[]): Record<string, unknown> {
  return Object.fromEntries(
    [...new Set(statuses)]
      .sort((a, b) => a - b)
      .map((s) => [
        String(s),
        {
          description: ERROR_DESCRIPTIONS[s] ?? 'error',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      ]),
  );
}

function operationId(path: string): string {
  return path
    .replace(/^\//, '')
    .split(/[/-]/)
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}

function packageVersion(): string {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/**
 * The OpenAPI 3.1 document of the API, generated from the zod schemas that validate the requests
 * (JSON Schema 2020-12 is OpenAPI 3.1's dialect), so it cannot disagree with what is accepted.
 */
export function buildOpenApiDocument(operations: readonly Operation[]): JsonSchema {
  const paths: Record<string, unknown> = {};
  for (const op of operations) {
    paths[`/v1${op.path}`] = {
      post: {
        operationId: operationId(op.path),
        summary: op.summary,
        requestBody: {
          required: true,
          description: `JSON in UTF-8, at most ${bodyLimitOf(op.path)} bytes (after decompression)`,
          content: { 'application/json': { schema: jsonSchema(op.request, 'input') } },
        },
        'x-max-body-bytes': bodyLimitOf(op.path),
        responses: {
          '200': { description: 'OK', content: { 'application/json': { schema: jsonSchema(op.response, 'output') } } },
          ...problemResponses([...COMMON_POST_ERRORS, ...op.errorStatuses]),
        },
      },
    };
  }

  // Its own route (routes/flaky-upload-route.ts): a JSON body, or one JUnit document as an XML body
  // with the metadata as query parameters.
  const uploadQuery = jsonSchema(uploadQuerySchema, 'input') as { properties: Record<string, JsonSchema>; required?: string[] };
  paths['/v1/flaky-tests/upload'] = {
    post: {
      operationId: 'flakyTestsUpload',
      summary: 'Upload JUnit XML results of a CI job; learns flaky and broken tests',
      description: 'With an application/xml body, the metadata comes from the query parameters (only then).',
      parameters: Object.entries(uploadQuery.properties).map(([name, schema]) => ({
        name,
        in: 'query',
        required: false,
        description: `${schema.description ?? name} (with an XML body${uploadQuery.required?.includes(name) ? ', required' : ''})`,
        schema,
      })),
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: jsonSchema(uploadJsonSchema, 'input') },
          'application/xml': { schema: { type: 'string', description: 'one JUnit XML document' } },
        },
      },
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: jsonSchema(uploadResponseSchema, 'output') } } },
        ...problemResponses([...COMMON_POST_ERRORS, 403]),
      },
    },
  };

  const query = jsonSchema(metricsQuerySchema, 'input') as { properties: Record<string, JsonSchema> };
  paths['/v1/getMergeQueueMetrics'] = {
    get: {
      operationId: 'getMergeQueueMetrics',
      summary: 'Queue metrics in the Prometheus text exposition format',
      parameters: Object.entries(query.properties).map(([name, schema]) => ({
        name,
        in: 'query',
        required: false,
        description: schema.description,
        schema,
      })),
      responses: {
        '200': { description: 'OK', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
        ...problemResponses([400, 401, 403, 429]),
      },
    },
  };
  const open = { security: [] };
  paths['/v1/openapi.json'] = {
    get: { ...open, operationId: 'getOpenApiDocument', summary: 'This document', responses: { '200': { description: 'OK' } } },
  };
  paths['/healthz'] = { get: { ...open, operationId: 'health', summary: 'The process is up', responses: { '200': { description: 'OK' } } } };
  paths['/readyz'] = {
    get: {
      ...open,
      operationId: 'ready',
      summary: 'The store answers',
      responses: { '200': { description: 'OK' }, ...problemResponses([503]) },
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'mergeq',
      version: packageVersion(),
      description:
        `Merge queue and quarantined-test API. Every request body is JSON in UTF-8, nested at most 64 levels deep, and at most ${DEFAULT_BODY_LIMIT} bytes (1 MiB) ` +
        'unless its operation says more (setImpactedTargets: 20 MiB). The seed\'s 20 MiB is a maximum, not a minimum.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    security: [{ apiToken: [] }],
    paths,
    components: {
      securitySchemes: { apiToken: { type: 'apiKey', in: 'header', name: TOKEN_HEADER } },
      schemas: { Problem: jsonSchema(problemSchema, 'output') },
    },
  };
}
