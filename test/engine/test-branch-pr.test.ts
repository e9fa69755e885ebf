import { draftPullRequestFor } from '../../src/engine/test-branch-pr.js';

function run(numbers: number[]) {
  return { id: 'r1', prs: numbers.map((n) => ({ entryId: `e${n}`, prNumber: n, prSha: `s${n}`, prTitle: `t${n}` })) };
}

describe('draftPullRequestFor', () => {
  it('names the PRs in merge order and lists them in the body', () => {
    const pr = draftPullRequestFor('main', 'mergeq/main/r1', run([13, 12]));
    expect(pr.title).toBe('mergeq: testing PRs 13, 12 on main');
    expect(pr.body).toContain('- `#13`\n- `#12`\n');
    // No bare #N anywhere: GitHub would mark every tested PR as mentioned, for every run.
    expect(`${pr.title}\n${pr.body}`.replaceAll(/`#\d+`/g, '')).not.toMatch(/#\d/);
    expect(pr.body).toContain('`mergeq/main/r1`');
    expect(pr.body).toContain('temporary');
  });

  it('names at most ten PRs in the title; the body lists them all', () => {
    const numbers = Array.from({ length: 25 }, (_, i) => i + 1);
    const pr = draftPullRequestFor('release', 'mergeq/release/r1', run(numbers));
    expect(pr.title).toBe('mergeq: testing PRs 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 15 more on release');
    expect(pr.body.split('\n').filter((l) => l.startsWith('- `#'))).toHaveLength(25);
  });
});
