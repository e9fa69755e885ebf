import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { FlakyTestService } from '../../service/flaky/flaky-test-service.js';
import { callerOf } from '../auth.js';
import { jsonBody, type JsonBodyOptions } from '../json-body.js';
import { uploadJsonSchema, uploadQuerySchema } from '../schemas/flaky-tests.js';
import { validate } from '../validate.js';
import { isXmlContentType, xmlBody } from '../xml-body.js';

/**
 * POST /v1/flaky-tests/upload (after requireToken): a JSON body with `junitXml`, or one JUnit XML
 * document as an `application/xml` body with the metadata in the query string.
 */
export function flakyUploadHandlers(service: FlakyTestService, body: JsonBodyOptions): RequestHandler[] {
  const readJson = jsonBody(body);
  const readXml = xmlBody(body);
  const readBody: RequestHandler = (req: Request, res: Response, next: NextFunction) =>
    isXmlContentType(req.get('content-type')) ? readXml(req, res, next) : readJson(req, res, next);

  const upload: RequestHandler = async (req: Request, res: Response) => {
    const { org } = callerOf(res);
    const input =
      typeof req.body === 'string'
        ? { ...validate(uploadQuerySchema, req.query), junitXml: [req.body] }
        : validate(uploadJsonSchema, req.body);
    res.status(200).json(await service.upload(org, input));
  };
  return [readBody, upload];
}
