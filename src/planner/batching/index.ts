export {
  formBatches,
  type BatchCandidate,
  type BatchFormation,
  type BatchSettings,
  type BatchTrigger,
  type FormedBatch,
} from './form-batches.js';
export { bisectionOutcome, culprit, nextProbes, obsoleteProbes } from './bisection.js';
export type {
  BisectionOptions,
  BisectionOutcome,
  FinishedProbeResult,
  PrefixResults,
  ProbeResult,
} from './prefix-evidence.js';
