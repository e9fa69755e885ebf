import { BusyError } from '../store/store.js';
import { ServiceError } from './errors.js';

/** A shared record that kept changing under a conditional write is answered 503 `busy` (retry later), not 500. */
export async function orBusy<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof BusyError) throw new ServiceError(503, 'busy', 'Busy', err.message);
    throw err;
  }
}
