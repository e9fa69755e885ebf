import type { VerdictCode } from '../../domain/verdict/verdict.js';
import type { QueueSettingsPatch } from '../queue/queue-inputs.js';

/** One queue of `.github/mergeq.yml`: a branch's, or the template of a branch pattern's. */
export type RepoConfigQueue = ({ branch: string; pattern?: undefined } | { pattern: string; branch?: undefined }) & { settings: QueueSettingsPatch };

/** A chat channel's rules for this repository's events, as the file names them (docs/notifications.md). */
export interface RepoConfigChannel {
  /** The channel's name or id. */
  channel: string;
  /** The line of `channel:` in the file, for a problem found when it is applied (no such channel). */
  line: number;
  events?: string[];
  verdicts?: VerdictCode[];
  branches?: string[];
  mentions?: Record<string, string>;
}

/** `.github/mergeq.yml` once validated (docs/mergeq-yml.md). */
export interface RepoConfig {
  queues: RepoConfigQueue[];
  channels: RepoConfigChannel[];
}

/** One problem of the file, on its line. */
export interface RepoConfigProblem {
  line: number;
  message: string;
}

/** What reading the file gave: the configuration, or the first problem found, naming its line (and every problem, each on its line). */
export type RepoConfigParse = { ok: true; config: RepoConfig } | { ok: false; problem: string; problems: RepoConfigProblem[] };
