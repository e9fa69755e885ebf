import type { Entry } from '../domain/entry.js';
import { latestVerdict } from '../domain/verdict/attach.js';
import type { RunRef, Verdict } from '../domain/verdict/verdict.js';

/**
 * The verdict's lines in the PR comment (docs/verdicts.md): the code and its one line, then what a
 * person needs to act — for a culprit the failing tests with their first failure line and runs, and
 * how it was isolated; for a bystander what it cost. The author is @-mentioned for a culprit only:
 * the only verdict that asks them to do something.
 */
export function verdictCommentLines(entry: Entry): string[] {
  const verdict = shownVerdict(entry);
  if (!verdict) return [];
  const who = verdict.code === 'culprit' && entry.prAuthor ? `@${entry.prAuthor} ` : '';
  const lines = ['', `**Verdict: \`${verdict.code}\`** — ${who}${escape(verdict.message)}`];
  switch (verdict.code) {
    case 'culprit': {
      const { failedTests, runs, isolation } = verdict.evidence;
      const byId = new Map(runs.map((r) => [r.id, r]));
      if (failedTests.length > 0) lines.push('', 'Failing tests:');
      for (const t of failedTests.slice(0, 10)) {
        const where = t.runIds.map((id) => byId.get(id)).filter((r): r is RunRef => r !== undefined).map(runLink).join(', ');
        lines.push(`- \`${t.name.replaceAll('`', "'")}\`${t.firstFailureLine ? ` — ${escape(t.firstFailureLine)}` : ''}${where ? ` (${where})` : ''}`);
      }
      if (failedTests.length > 10) lines.push(`- … and ${failedTests.length - 10} more`);
      const probes = isolation.bisectionRuns.map(runLink).join(', ');
      lines.push('', `Isolated by ${isolation.method.replace('_', ' ')}: ${escape(isolation.step)}${probes ? ` (bisection runs: ${probes})` : ''}`);
      break;
    }
    case 'bystander': {
      const { cost } = verdict.evidence;
      if (cost.runs > 0) lines.push('', `It cost this pull request ${cost.runs} run(s), ${cost.minutes} CI minute(s).`);
      break;
    }
    default:
      break;
  }
  return lines;
}

/** A PR that left the queue says its last verdict; one that merged says only what it went through as a bystander, a flake or a CI failure. */
function shownVerdict(entry: Entry): Verdict | null {
  const verdict = latestVerdict(entry);
  if (!verdict) return null;
  if (entry.state === 'FAILED' || entry.state === 'CANCELLED') return verdict.at === entry.stateChangedAt ? verdict : null;
  if (entry.state === 'MERGED') return verdict.code === 'bystander' || verdict.code === 'flaky' || verdict.code === 'infrastructure' ? verdict : null;
  return null;
}

function runLink(run: RunRef): string {
  const name = `${run.kind} run ${run.prNumbers.map((n) => `#${n}`).join('+')}`;
  return run.url && /^https?:\/\//i.test(run.url) ? `[${name}](${run.url.replace(/[\s()<>]/g, encodeURIComponent)})` : name;
}

function escape(text: string): string {
  return text.replace(/[\\[\]<>]/g, (ch) => `\\${ch}`).replace(/@(?=\w)/g, '@\u200b');
}

/** The status description of a PR that left the queue: its verdict's line when it has one. */
export function verdictStatusLine(entry: Entry): string | null {
  const verdict = latestVerdict(entry);
  return verdict && verdict.at === entry.stateChangedAt ? verdict.message : null;
}
