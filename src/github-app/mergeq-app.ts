import type { ApplicationFunction, Context } from 'probot';
import type { AppDeps } from './app-deps.js';
import { autoEnqueueOnCheckSuite, autoEnqueueOnPullRequest, autoEnqueueOnReview, autoEnqueueOnStatus } from './handlers/auto-enqueue.js';
import { onCheckRun, onCheckSuite, onStatus } from './handlers/ci-results.js';
import { onIssueComment } from './handlers/comment-command.js';
import { onInstallation } from './handlers/installation.js';
import { onLabel } from './handlers/label.js';
import { onMerged } from './handlers/merged.js';
import { onPullRequest } from './handlers/pull-request.js';
import { onPullRequestReview } from './handlers/pull-request-review.js';
import { onPush } from './handlers/push.js';
import { onStackChanged } from './handlers/stacks.js';

/**
 * The GitHub App: one handler per event kind, each run at most once per delivery that it handled
 * (`x-github-delivery`, remembered in the store so that redeliveries and other replicas skip it; a
 * delivery whose handler failed is forgotten again, so its redelivery is handled).
 */
export function mergeqApp(deps: AppDeps, now: () => Date = () => new Date()): ApplicationFunction {
  const once =
    <C extends Context>(handler: (deps: AppDeps, context: C) => Promise<void>) =>
    async (context: C): Promise<void> => {
      if (!(await deps.deliveries.claim(context.id, now()))) {
        deps.logger.debug({ delivery: context.id, event: context.name }, 'webhook delivery already handled');
        return;
      }
      try {
        await handler(deps, context);
      } catch (err) {
        // Not handled: GitHub's redelivery of it (or another replica) must handle it.
        await deps.deliveries.release(context.id);
        throw err;
      }
    };

  /** Several handlers of one delivery, one after the other (a delivery is claimed once). */
  const inTurn =
    <C extends Context>(...handlers: ((deps: AppDeps, context: C) => Promise<void>)[]) =>
    async (d: AppDeps, context: C): Promise<void> => {
      for (const handler of handlers) await handler(d, context);
    };

  return (app) => {
    app.on('issue_comment.created', once(onIssueComment));
    app.on(
      ['pull_request.opened', 'pull_request.reopened', 'pull_request.synchronize', 'pull_request.closed', 'pull_request.edited', 'pull_request.converted_to_draft', 'pull_request.ready_for_review'],
      once(inTurn(onPullRequest, onStackChanged, onMerged, autoEnqueueOnPullRequest)),
    );
    // GitHub's native stacks (public preview): not in probot's event names yet.
    app.on('pull_request.stacked' as never, once(inTurn(onPullRequest, onStackChanged)));
    app.on(['pull_request.labeled', 'pull_request.unlabeled'], once(onLabel));
    app.on(['pull_request_review.submitted', 'pull_request_review.dismissed'], once(inTurn(onPullRequestReview, autoEnqueueOnReview)));
    app.on('status', once(inTurn(onStatus, autoEnqueueOnStatus)));
    app.on(['check_run.created', 'check_run.completed', 'check_run.rerequested'], once(onCheckRun));
    app.on('check_suite.completed', once(inTurn(onCheckSuite, autoEnqueueOnCheckSuite)));
    app.on('push', once(onPush));
    app.on(['installation.created', 'installation_repositories.added'], once(onInstallation));
  };
}
