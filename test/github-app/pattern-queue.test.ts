import { expect, it } from '@jest/globals';
import { QueueTemplateService } from '../../src/service/queue/queue-template-service.js';
import { AppHarness } from './app-harness.js';

it('/merge on a PR to release/1.2 creates its queue from the release/* template and queues the PR', async () => {
  const h = await AppHarness.start();
  try {
    const org = await h.install();
    await new QueueTemplateService(h.store, h.time).create(org, { repo: h.repo, pattern: 'release/*', concurrency: 2 });
    h.fake.permissions.set('maintainer', 'write');
    h.fake.refs.set('release/1.2', 'base0');
    h.fake.openPull(1).base = 'release/1.2';

    await h.comment(1, '/merge');

    expect(h.fake.replies()).toEqual([]);
    const queue = await h.queueService.getQueue(org, { repo: h.repo, targetBranch: 'release/1.2' });
    expect(queue).toMatchObject({ concurrency: 2, createdFrom: { pattern: 'release/*' } });
    expect(queue.enqueuedPullRequests.map((p) => p.prNumber)).toEqual([1]);
  } finally {
    await h.stop();
  }
});
