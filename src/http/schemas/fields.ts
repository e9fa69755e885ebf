import { z } from 'zod';

/**
 * Building blocks of the request schemas: liberal in what they accept where real clients differ
 * (api.md, "General"), and each renders as an honest JSON Schema of that input for OpenAPI.
 */

const DIGITS = /^\s*-?\d+\s*$/;

/** An integer from `min` to `max`; a JSON string of digits (`"42"`) is accepted too. */
export function liberalInt(min: number, max: number, description?: string) {
  return z.codec(
    z.unknown().meta({
      type: ['integer', 'string'],
      minimum: min,
      maximum: max,
      pattern: '^\\s*-?\\d+\\s*$',
      description: description ? `${description} (an integer, or a string of digits)` : 'an integer, or a string of digits',
    }),
    z
      .number({ error: (iss) => (iss.input === undefined ? 'Required' : 'expected an integer (a number or a string of digits)') })
      .int({ error: 'expected an integer', abort: true })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
    // decode only normalises; the output schema then validates whatever came in.
    { decode: (v) => (typeof v === 'string' && DIGITS.test(v) ? Number(v) : v) as number, encode: (n) => n },
  );
}

/** One of `values`, in any letter case (`PAUSED` = `paused`); the output is the lower-case value. */
export function liberalEnum<const T extends readonly [string, ...string[]]>(values: T, description?: string) {
  return z.codec(
    z.unknown().meta({ type: 'string', enum: [...values], description: `${description ? `${description}; ` : ''}case-insensitive` }),
    z.enum(values, {
      error: (iss) => (iss.input === undefined ? 'Required' : `expected one of ${values.join(', ')} (in any letter case)`),
    }),
    { decode: (v) => (typeof v === 'string' ? v.toLowerCase() : v) as T[number], encode: (v) => v },
  );
}

/** An optional field where `null` means the same as leaving it out (Terraform-style clients send both). */
export function optionalField<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v) => v ?? undefined);
}

export function nonEmptyString(maxLength: number, description?: string) {
  const s = z
    .string({ error: (iss) => (iss.input === undefined ? 'Required' : 'expected a string') })
    .min(1, { error: 'must not be empty' })
    .max(maxLength, { error: `must be at most ${maxLength} characters` });
  return description ? s.describe(description) : s;
}

export function boolean(description?: string) {
  const b = z.boolean({ error: (iss) => (iss.input === undefined ? 'Required' : 'expected true or false') });
  return description ? b.describe(description) : b;
}
