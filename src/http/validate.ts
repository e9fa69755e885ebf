import { z } from 'zod';
import { closestName } from '../domain/closest-name.js';
import type { FieldProblem } from '../service/errors.js';
import { httpErrors } from './problem.js';

/** Keeps a pathological body (say, 700,000 bad target names) from producing a huge error document. */
const MAX_LISTED_PROBLEMS = 100;
const ROOT_PATH = '(body)';
/** An unknown field name longer than this gets no "did you mean". */
const MAX_GUESSED_NAME = 100;

/** Parses `input` with `schema`, or throws a 400 invalid_request listing every field problem. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = fieldProblems(result.error.issues, schema);
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

/** One problem per issue, and one per unknown field of a strict body, naming the field it probably meant. */
export function fieldProblems(issues: readonly z.core.$ZodIssue[], schema?: z.ZodType): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  const add = (segments: readonly PropertyKey[], message: string) => {
    const path = segments.length === 0 ? ROOT_PATH : segments.map(String).join('.');
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ path, message });
  };
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') {
      add(issue.path, issue.message);
      continue;
    }
    const known = schema ? fieldsAt(schema, issue.path) : [];
    for (const field of issue.keys) {
      // Guessing costs edits × known names: only for the problems that will be listed, and for names of a sane length.
      const closest = problems.length < MAX_LISTED_PROBLEMS && field.length <= MAX_GUESSED_NAME ? closestName(field, known) : null;
      add([...issue.path, field], `unknown field${closest ? `; did you mean ${closest}?` : ''}`);
    }
  }
  return problems;
}

/** The field names of the object schema at `path` inside `schema` (through optional, nullable and transform wrappers). */
function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) at = at instanceof z.ZodObject ? unwrap(at.shape[String(segment)]) : undefined;
  return at instanceof z.ZodObject ? Object.keys(at.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}
