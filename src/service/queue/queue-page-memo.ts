import type { MergeEstimate } from '../../domain/eta.js';
import type { QueueDoc } from '../../domain/queue.js';

/** Pages kept per queue document (page index and size): a client cannot make it keep many. */
const MAX_PAGES_PER_DOC = 16;

/**
 * The getQueue answers of one queue document, kept while its estimates are the same object
 * (MergeEstimates keeps those for a second): a deep queue polled by many clients or the web page
 * would otherwise be put in order, estimated and turned into records once per request. Documents are
 * never changed in place, so a new version always builds new answers. Answers are frozen: the HTTP
 * door then serializes each once (src/http/json-response.ts).
 */
export class QueuePageMemo<T extends object> {
  private readonly kept = new WeakMap<QueueDoc, { estimates: ReadonlyMap<string, MergeEstimate>; pages: Map<string, Promise<T>> }>();

  get(queue: QueueDoc, estimates: ReadonlyMap<string, MergeEstimate>, key: string, build: () => Promise<T>): Promise<T> {
    let kept = this.kept.get(queue);
    if (kept?.estimates !== estimates) this.kept.set(queue, (kept = { estimates, pages: new Map() }));
    const pages = kept.pages;
    let page = pages.get(key);
    if (!page) {
      if (pages.size >= MAX_PAGES_PER_DOC) pages.delete(pages.keys().next().value!);
      page = build().then((answer) => Object.freeze(answer));
      pages.set(key, page);
      page.catch(() => {
        if (pages.get(key) === page) pages.delete(key);
      });
    }
    return page;
  }
}
