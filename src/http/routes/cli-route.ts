import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler, type Router } from 'express';
import { ServiceError } from '../../service/errors.js';
import { methodNotAllowed } from './method-not-allowed.js';

export const CLI_PATH = '/cli/mergeq.mjs';

/** dist/mergeq.mjs, written by `npm run build` (scripts/bundle-cli.mjs); the same path from src/http/routes and dist/http/routes. */
export const CLI_BUNDLE_FILE = fileURLToPath(new URL('../../../dist/mergeq.mjs', import.meta.url));

/**
 * GET /cli/mergeq.mjs: the single-file CLI (`mergeq test`, `queue`, `pr`) of this very version, for
 * CI machines to download (docs/flaky-tests.md). No token: it holds nothing secret.
 */
export function cliRoute(limits: RequestHandler[], bundleFile = CLI_BUNDLE_FILE): Router {
  const router = express.Router();
  router
    .route(CLI_PATH)
    .get(...limits, async (_req, res) => {
      let bundle: Buffer;
      try {
        bundle = await readFile(bundleFile);
      } catch {
        throw new ServiceError(404, 'cli_not_built', 'CLI not built', 'this installation has no single-file CLI: build it with `npm run build` (it writes dist/mergeq.mjs)');
      }
      res.status(200).type('text/javascript; charset=utf-8').set('cache-control', 'no-cache').send(bundle);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
