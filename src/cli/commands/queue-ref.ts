import type { Command } from 'commander';
import type { RepoRef } from '../../domain/repo.js';
import { parseRepoFlag } from '../test-wrapper/ci-environment.js';
import { usageError } from '../usage-error.js';

export interface QueueRefOptions {
  repo: string;
  branch: string;
}

/** `--repo` and `--branch`: which queue a `queue` or `pr` command acts on. */
export function addQueueRefOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--repo <repo>', 'the repository: owner/name on github.com, or host/owner/name')
    .requiredOption('--branch <name>', 'the branch the queue merges into, e.g. main');
}

/** `owner/name` (github.com) or `host/owner/name`. */
export function parseRepo(value: string): RepoRef {
  const parts = value.split('/').filter(Boolean);
  const repo = parts.length === 2 ? { host: 'github.com', owner: parts[0]!, name: parts[1]! } : parseRepoFlag(value);
  if (!repo) throw usageError(`--repo must be owner/name or host/owner/name, got "${value}"`);
  return repo;
}

export function queueRefOf(options: QueueRefOptions): { repo: RepoRef; targetBranch: string } {
  return { repo: parseRepo(options.repo), targetBranch: options.branch };
}

export function describeQueue(ref: { repo: RepoRef; targetBranch: string }): string {
  return `${ref.repo.host}/${ref.repo.owner}/${ref.repo.name} ${ref.targetBranch}`;
}
