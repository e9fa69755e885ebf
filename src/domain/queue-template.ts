import type { RepoRef } from './repo.js';
import type { QueueSettings } from './settings.js';

/** Where a queue's or a template's settings come from: the API (and CLI), or a commit of the repository's file. */
export const API_SETTINGS_SOURCE = 'api';
export const REPO_CONFIG_PATH = '.github/mergeq.yml';

/** `.github/mergeq.yml@<sha>`: the settings were applied from that commit's file. */
export function fileSettingsSource(sha: string): string {
  return `${REPO_CONFIG_PATH}@${sha}`;
}

export function isManagedByFile(source: string | undefined): boolean {
  return source !== undefined && source.startsWith(`${REPO_CONFIG_PATH}@`);
}

/**
 * A queue template: the settings of the queue of any branch of the repository matching `pattern`
 * (a glob: `*` within one path segment, `**` across), created the first time a PR to it is submitted.
 */
export interface QueueTemplate {
  orgId: string;
  repo: RepoRef;
  /** repoKey(repo). One template per (repoKey, pattern). */
  repoKey: string;
  pattern: string;
  /** The settings given; the others take their defaults in each queue created from it. */
  settings: Partial<QueueSettings>;
  /** `api`, or `.github/mergeq.yml@<sha>` while the file manages it. */
  settingsSource: string;
  createdAt: string;
  updatedAt: string;
}
