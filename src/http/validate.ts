import type { z } from 'zod';
import type { FieldProblem } from '../service/errors.js';
import { httpErrors } from './problem.js';

/** Keeps a pathological body (say, 700,000 bad target names) from producing a huge error document. */
const MAX_LISTED_PROBLEMS = 100;
const ROOT_PATH = '(body)';

/** Parses `input` with `schema`, or throws a 400 invalid_request listing every field problem. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = fieldProblems(result.error.issues);
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const more = problems.length - listed.length;
  const summary = listed
    .slice(0, 5)
    .map((p) => `${p.path}: ${p.message}`)
    .join('; ');
  const detail = `${problems.length} problem${problems.length === 1 ? '' : 's'} in the request: ${summary}${problems.length > 5 ? '; …' : ''}${
    more > 0 ? ` (${more} more not listed)` : ''
  }`;
  throw httpErrors.invalidRequest(listed, detail);
}

export function fieldProblems(issues: readonly z.core.$ZodIssue[]): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  for (const issue of issues) {
    const path = issue.path.length === 0 ? ROOT_PATH : issue.path.map(String).join('.');
    const key = `${path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ path, message: issue.message });
  }
  return problems;
}
