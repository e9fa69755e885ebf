import type { Response } from 'express';

/** The JSON text of frozen answers, serialized once each. */
const textOf = new WeakMap<object, string>();

/**
 * Answers 200 with `result` as JSON. A frozen result is one a service hands out again unchanged (a
 * kept page of a deep queue, src/service/queue/queue-page-memo.ts): its text is kept with it, so a page of
 * 100 records is not serialized again for every client that polls it.
 */
export function sendJson(res: Response, result: unknown): void {
  let text: string | undefined;
  if (typeof result === 'object' && result !== null && Object.isFrozen(result)) {
    text = textOf.get(result);
    if (text === undefined) textOf.set(result, (text = JSON.stringify(result)));
  } else {
    text = JSON.stringify(result);
  }
  res.status(200).type('application/json').send(text);
}
