import nock from 'nock';
import { API, FakeGitHub } from '../../src/testing/fake-github.js';

export { API, FakeGitHub };

/** Serves the fake's API through nock; `nock.cleanAll()` stops it. */
export function serveWithNock(fake: FakeGitHub): void {
  const scope = nock(API).persist();
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    scope.intercept(() => true, method).reply(async (uri, body) => {
      await fake.held.gate(method, decodeURIComponent(uri));
      return fake.handle(method, decodeURIComponent(uri), body as Record<string, unknown>);
    });
  }
}
