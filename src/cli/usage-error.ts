import { ServiceError } from '../service/errors.js';

/** A wrong command line: reported as `mergeq: <detail>`, exit code 2. */
export function usageError(detail: string): ServiceError {
  return new ServiceError(400, 'usage', 'Usage', detail);
}
