import type { FakePull } from './fake-github-types.js';

/** A PR as GitHub's REST API and its webhook payloads carry it (`GET …/pulls/N`, `pull_request` events). */
export function pullJson(p: FakePull): Record<string, unknown> {
  return {
    number: p.number,
    title: p.title,
    state: p.state,
    merged: p.merged,
    merged_at: p.merged ? '2026-11-24T09:00:00Z' : null,
    merge_commit_sha: p.mergeCommitSha,
    draft: p.draft,
    mergeable: p.state === 'open' ? true : null,
    mergeable_state: p.state !== 'open' ? 'unknown' : p.awaitsReview ? 'blocked' : 'clean',
    head: { sha: p.head, ref: p.headRef ?? `feature-${p.number}`, label: `${p.author.replace('[bot]', '')}:${p.headRef ?? `feature-${p.number}`}` },
    base: { ref: p.base },
    user: { login: p.author, type: p.author.endsWith('[bot]') ? 'Bot' : 'User' },
    labels: p.labels.map((name) => ({ name })),
  };
}
