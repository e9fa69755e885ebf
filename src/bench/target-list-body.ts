import type { RepoRef } from '../domain/repo.js';

export interface TargetListBody {
  body: Buffer;
  targets: number;
}

/**
 * A setImpactedTargets body of Bazel-like target names (`//services/svc17/pkg3:target_123456`),
 * grown until it is within a few dozen bytes of `maxBytes` without passing it.
 */
export function targetListBody(opts: { repo: RepoRef; targetBranch: string; prNumber: number; sha: string; maxBytes: number }): TargetListBody {
  const head = JSON.stringify({ repo: opts.repo, targetBranch: opts.targetBranch, pr: { number: opts.prNumber, sha: opts.sha } });
  // `{...,"impactedTargets":[` + names + `]}`
  const prefix = `${head.slice(0, -1)},"impactedTargets":[`;
  const suffix = ']}';
  const names: string[] = [];
  let size = Buffer.byteLength(prefix) + suffix.length;
  for (let i = 0; ; i++) {
    const quoted = JSON.stringify(`//services/svc${i % 500}/pkg${i % 37}:target_${i}`);
    const added = quoted.length + (names.length > 0 ? 1 : 0);
    if (size + added > opts.maxBytes) break;
    names.push(quoted);
    size += added;
  }
  const body = Buffer.from(prefix + names.join(',') + suffix);
  if (body.length > opts.maxBytes) throw new Error(`target list body is ${body.length} bytes, over ${opts.maxBytes}`);
  return { body, targets: names.length };
}
