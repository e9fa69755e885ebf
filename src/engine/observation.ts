import type { Logger } from 'pino';
import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import type { PullRequestInfo } from '../domain/pull-request.js';
import { NO_GIT_HOST_NOTE, type GitHost } from '../githost/githost.js';

import { recordDirectMergeFacts, recordImpactedTargets, recordPullRequest, recordStatusChecks, recordTargetRead, requiredChecksPassed } from '../planner/index.js';
import type { Clock } from '../domain/clock.js';

import type { Fact } from './fact.js';
import { needsTargets } from './queue-targets.js';
import type { QueueRuntime } from './queue-runtime.js';

/** Calls the git host, retrying what may go away by itself (retry.ts). */
export type Retrying = <T>(fn: () => Promise<T>) => Promise<T>;

export interface ObserverOptions {
  gitHost: GitHost;
  clock: Clock;
  logger: Logger;
  withRetry: Retrying;
  /** How often runs in flight and NOT_READY PRs are read again (the fallback for lost webhooks). */
  pollIntervalMs: number;
}

/**
 * Observation of the git host: reads what is due for a refresh (the target head, PR info of NOT_READY
 * entries, statuses of runs in flight, what directMergeMode needs) and turns it into facts. It changes
 * nothing on the host.
 */
export class GitHostObserver {
  constructor(private readonly o: ObserverOptions) {}

  async dueFacts(rt: QueueRuntime, doc: QueueDoc): Promise<Fact[]> {
    const { gitHost, logger } = this.o;
    const now = this.o.clock.now();
    const nowMs = now.getTime();
    const facts: Fact[] = [];
    const isDue = (last: number | undefined | null) => last === undefined || last === null || nowMs - last >= this.o.pollIntervalMs;

    let targetSha = doc.targetSha;
    if (gitHost.kind !== 'none' && isDue(rt.headCheckedAt)) {
      rt.headCheckedAt = nowMs;
      try {
        const head = await this.o.withRetry(() => gitHost.getBranchHead(doc.repo, doc.branch));
        if (head && head !== doc.targetSha) {
          targetSha = head;
          facts.push((q) => recordTargetRead(q, head, now));
        }
      } catch (err) {
        logger.warn({ err, queueId: doc.id }, 'could not read the head of the target branch');
      }
    }

    const refreshed: Entry[] = [];
    for (const entry of doc.entries) {
      if (entry.state !== 'NOT_READY' || !isDue(rt.prCheckedAt.get(entry.id))) continue;
      rt.prCheckedAt.set(entry.id, nowMs);
      if (gitHost.kind === 'none') {
        const info = unknownPullRequest(entry);
        facts.push((q) => recordPullRequest(q, info, now, NO_GIT_HOST_NOTE));
        continue;
      }
      refreshed.push(entry);
      try {
        const pr = await this.o.withRetry(() => gitHost.getPullRequest(doc.repo, entry.prNumber));
        facts.push((q) => recordPullRequest(q, pr, now, null, entry.prNumber));
      } catch (err) {
        logger.warn({ err, queueId: doc.id, pr: entry.prNumber }, 'could not read the pull request');
      }
      if (needsTargets(doc) && !entry.readiness.hasImpactedTargets && (await rt.targets.has(doc.repoKey, entry))) {
        facts.push((q) => recordImpactedTargets(q, entry.prNumber, entry.prSha));
      }
    }
    if (gitHost.kind === 'none') return facts;

    if (doc.settings.directMergeMode === 'always' && targetSha) {
      const headUnit = doc.units[0];
      const head = headUnit?.entryIds.length === 1 ? doc.entries.find((e) => e.id === headUnit.entryIds[0] && e.state === 'PENDING') : undefined;
      facts.push(...(await this.directMergeFacts(rt, doc, head ? [...refreshed, head] : refreshed, targetSha)));
    }

    for (const run of doc.runs) {
      if (run.status !== 'pending' || !run.testBranchSha) continue;
      const last = rt.statusPolledAt.get(run.id) ?? Date.parse(run.createdAt);
      if (!isDue(last)) continue;
      rt.statusPolledAt.set(run.id, nowMs);
      const sha = run.testBranchSha;
      try {
        const checks = await this.o.withRetry(() => gitHost.readStatuses(doc.repo, sha));
        if (checks.length > 0) facts.push((q) => recordStatusChecks(q, sha, checks, now));
      } catch (err) {
        logger.warn({ err, queueId: doc.id, runId: run.id }, 'could not read the statuses of a test branch');
      }
    }
    return facts;
  }

  /** Whether each PR head contains the target head and passed its own required checks (once per pair of heads). */
  private async directMergeFacts(rt: QueueRuntime, doc: QueueDoc, entries: Entry[], targetSha: string): Promise<Fact[]> {
    const { gitHost } = this.o;
    const headContains = gitHost.headContains?.bind(gitHost);
    if (!headContains) return [];
    const facts: Fact[] = [];
    let required: string[] | null = doc.settings.requiredStatuses;
    for (const entry of entries) {
      const key = `${entry.prSha}|${targetSha}`;
      if (rt.directChecked.get(entry.id) === key) continue;
      try {
        required ??= await this.o.withRetry(() => gitHost.requiredStatuses(doc.repo, doc.branch));
        const requiredNow = required;
        const checks = await this.o.withRetry(() => gitHost.readStatuses(doc.repo, entry.prSha));
        const contains = await this.o.withRetry(() => headContains(doc.repo, entry.prSha, targetSha));
        rt.directChecked.set(entry.id, key);
        const known = {
          containsTargetSha: contains ? targetSha : null,
          ownChecksPassedSha: requiredChecksPassed(requiredNow, checks) ? entry.prSha : null,
        };
        facts.push((q) => recordDirectMergeFacts(q, entry.id, entry.prSha, known));
      } catch (err) {
        this.o.logger.warn({ err, queueId: doc.id, pr: entry.prNumber }, 'could not check whether the pull request can merge directly');
      }
    }
    return facts;
  }
}

/** What is known of a PR when no git host is configured: only what the entry says. */
function unknownPullRequest(entry: Entry): PullRequestInfo {
  return {
    number: entry.prNumber,
    title: entry.prTitle,
    headSha: entry.prSha,
    baseBranch: entry.prBaseBranch,
    author: entry.prAuthor,
    state: 'open',
    draft: false,
    mergeability: 'UNSPECIFIED',
    mergeCommitSha: null,
  };
}
