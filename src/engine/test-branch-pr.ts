import type { TestRun } from '../domain/run.js';
import type { DraftPullRequestSpec } from '../githost/githost.js';

/** PR numbers named in a title; the body lists them all. */
const MAX_TITLE_PRS = 10;

/**
 * The draft PR opened from a run's test branch (`createPrsForTestingBranches`): the PRs it tests, in
 * merge order, and that it is temporary. E.g. `mergeq: testing PRs 12, 13 on main`. The numbers are
 * written without a bare `#`: GitHub would add a "mentioned this" event to each tested PR for every run.
 */
export function draftPullRequestFor(targetBranch: string, testBranch: string, run: Pick<TestRun, 'id' | 'prs'>): DraftPullRequestSpec {
  const numbers = run.prs.map((p) => String(p.prNumber));
  const named = numbers.length > MAX_TITLE_PRS ? `${numbers.slice(0, MAX_TITLE_PRS).join(', ')} and ${numbers.length - MAX_TITLE_PRS} more` : numbers.join(', ');
  const body = [
    `Test run \`${run.id}\` of the merge queue of \`${targetBranch}\`. The branch \`${testBranch}\` is \`${targetBranch}\` with these pull requests merged, in this order:`,
    '',
    ...numbers.map((n) => `- \`#${n}\``),
    '',
    'This draft pull request is temporary: mergeq closes it when the run ends (its branch is deleted). Do not merge it.',
  ].join('\n');
  return { title: `mergeq: testing PRs ${named} on ${targetBranch}`, body };
}
