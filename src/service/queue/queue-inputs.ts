import type { StackRequest } from './stack-members.js';
import type { PriorityName } from '../../domain/priority.js';
import type { RepoRef } from '../../domain/repo.js';
import type { QueueSettings } from '../../domain/settings.js';
import type { SettableQueueState } from '../../domain/states.js';
import type { ImpactedTargets } from '../../domain/targets.js';

/** Validated inputs of the QueueService operations (the HTTP schemas produce exactly these). */

export interface QueueRefInput {
  repo: RepoRef;
  targetBranch: string;
}

export interface PullRequestRefInput extends QueueRefInput {
  pr: { number: number };
}

export interface SubmitPullRequestInput extends PullRequestRefInput {
  /** A priority name or a value 0–255; absent: the default for a new entry, unchanged for an active one. */
  priority?: PriorityName | number;
  noBatch?: boolean;
  /** Queue the PR with the members of its stack below it (docs/stacks.md). */
  stack?: StackRequest;
}

export interface SetImpactedTargetsInput extends QueueRefInput {
  pr: { number: number; sha: string };
  impactedTargets: ImpactedTargets;
}

export interface TestingDetailsInput extends QueueRefInput {
  testRunId?: string;
  pr?: { number: number };
}

/** Settings as a patch: absent fields keep their value (or default); `requiredStatuses: null` is a value. */
export type QueueSettingsPatch = { [K in keyof QueueSettings]?: QueueSettings[K] };

export type CreateQueueInput = QueueRefInput & QueueSettingsPatch & { state?: SettableQueueState };

export type UpdateQueueInput = QueueRefInput & QueueSettingsPatch & { state?: SettableQueueState };
