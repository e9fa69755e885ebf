import { z } from 'zod';
import { RESTART_BUDGET_BOUNDS, SETTING_BOUNDS } from '../../domain/settings.js';
import { boolean, liberalInt, optionalField } from './fields.js';

/** Restart budgets and storms (docs/queue-rules.md, "Restart budgets" and "Storms"): their queue settings. */

const [min, max] = RESTART_BUDGET_BOUNDS;

const restartBudgetsSchema = z.strictObject(
  {
    bystander: liberalInt(min, max, 'restarts as a bystander (another PR broke a run it was in) before the PR is held; default 3'),
    infrastructure: liberalInt(min, max, 'retries of a run that ended in a CI error before the PR is held; default 2'),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? undefined : iss.input === undefined ? 'Required' : 'expected an object {bystander, infrastructure}') },
);

function bounded(field: 'stormRuns' | 'stormMinutes', description: string) {
  const [lo, hi] = SETTING_BOUNDS[field];
  return optionalField(liberalInt(lo, hi, description));
}

export const stormSettingsFields = {
  restartBudgets: optionalField(restartBudgetsSchema).describe(
    'restarts a PR may take per cause before it is held (NOT_READY, restart_budget), counted since it was submitted or a person restarted it (a bystander\'s also since the target branch last moved); replaced as a whole; default {"bystander": 3, "infrastructure": 2}',
  ),
  stormRuns: bounded('stormRuns', 'a storm: this many runs ended within stormMinutes and nothing merged; default 10'),
  stormMinutes: bounded('stormMinutes', 'the window of a storm, in minutes; default 30'),
  stormPause: optionalField(boolean('while a storm lasts, only the head of the queue is tested (no runs past it); default false')),
};

export const stormSettingsResponseFields = {
  restartBudgets: z.object({ bystander: z.number().int(), infrastructure: z.number().int() }),
  stormRuns: z.number().int(),
  stormMinutes: z.number().int(),
  stormPause: z.boolean(),
};

const timestamp = z.string().describe('ISO 8601 time');

/** getQueue's `storm`. */
export const stormRecordSchema = z
  .object({
    since: timestamp,
    runs: z.number().int().describe('runs that ended within the window with nothing merged'),
    minutes: z.number().int().describe('the window (stormMinutes)'),
    cause: z.object({
      prNumber: z.number().int().nullable().describe('the PR whose runs failed most often in the window; null when none failed'),
      prFailures: z.number().int().describe('how many runs of the window it failed'),
      flakyTests: z.array(z.string()).describe('known flaky or quarantined tests that failed in the window (the first 10)'),
      ciErrors: z.number().int().describe('runs of the window that ended in a CI error'),
      erroredChecks: z.array(z.string()).describe('the checks that errored'),
    }),
    message: z.string().describe('one line naming the cause, as the web page shows it'),
  })
  .nullable()
  .describe('the storm in force: stormRuns runs ended within stormMinutes and nothing merged (docs/queue-rules.md, "Storms"); null when none');
