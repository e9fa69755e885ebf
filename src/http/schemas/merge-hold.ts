import { z } from 'zod';
import { HOLD_MODES } from '../../domain/merge-hold.js';
import { WEEKDAYS, isKnownTimeZone, minutesOf } from '../../domain/merge-window.js';
import { prNumberSchema, queueRefFields, strictBody } from './common.js';
import { liberalEnum, nonEmptyString, optionalField } from './fields.js';

/** Merge windows and freezes (docs/queue-policies.md): the queue settings and the freeze operations. */

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const timeOfDay = (what: string, allowMidnightEnd: boolean) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'Required' : 'expected a string "HH:MM"') })
    .refine((v) => HHMM.test(v) || (allowMidnightEnd && v === '24:00'), {
      error: `expected a time "HH:MM" from 00:00 to ${allowMidnightEnd ? '24:00' : '23:59'}`,
    })
    .describe(what);

const weeklyWindowSchema = z
  .strictObject(
    {
      days: z
        .array(liberalEnum(WEEKDAYS))
        .min(1, { error: 'name at least one day' })
        .max(7)
        .describe('the days it opens on: mon, tue, wed, thu, fri, sat, sun'),
      start: timeOfDay('local time it opens, "HH:MM"', false),
      end: timeOfDay('local time it closes, "HH:MM" (24:00: midnight); after start', true),
    },
    { error: (iss) => (iss.input === undefined ? 'Required' : 'expected an object {days, start, end}') },
  )
  .superRefine((w, ctx) => {
    if (minutesOf(w.end) <= minutesOf(w.start)) ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be after start (a window ends on the day it starts)' });
  });

export const mergeWindowsSchema = z
  .strictObject(
    {
      timeZone: z
        .string({ error: (iss) => (iss.input === undefined ? 'Required' : 'expected a string') })
        .refine(isKnownTimeZone, { error: 'expected an IANA time zone, e.g. Europe/Berlin' })
        .describe('IANA time zone the windows are in, e.g. Europe/Berlin'),
      windows: z.array(weeklyWindowSchema).min(1, { error: 'name at least one window' }).max(50, { error: 'at most 50 windows' }),
    },
    { error: (iss) => (iss.input === undefined ? 'Required' : 'expected an object {timeZone, windows}') },
  )
  .nullable()
  .optional()
  .describe('weekly intervals when the queue may merge; null: at any time (the default)');

export const holdModeField = optionalField(
  liberalEnum(HOLD_MODES, 'what a freeze or closed merge window holds back: merge (passed runs wait unmerged) or start (also no new runs); default merge'),
);

/** The queue settings of this file, spread into createQueue and updateQueue. */
export const mergeHoldSettingsFields = { mergeWindows: mergeWindowsSchema, holdMode: holdModeField };

const MAX_REASON_LENGTH = 1000;

export const freezeQueueSchema = strictBody({
  ...queueRefFields,
  reason: nonEmptyString(MAX_REASON_LENGTH, 'why it is frozen; shown on the PRs it holds'),
  endsAt: optionalField(z.iso.datetime({ offset: true, error: 'expected an ISO 8601 time, e.g. 2026-12-24T18:00:00Z' })).describe('when the freeze ends by itself; absent: when unfrozen'),
  allowPullRequests: optionalField(z.array(prNumberSchema).max(1000, { error: 'at most 1000 pull requests' })).describe(
    'pull requests that may merge anyway (urgent ones always may)',
  ),
});

export const unfreezeQueueSchema = strictBody({ ...queueRefFields });

const timestamp = z.string().describe('ISO 8601 time');

export const mergeWindowsResponseSchema = z
  .object({
    timeZone: z.string(),
    windows: z.array(z.object({ days: z.array(z.enum(WEEKDAYS)), start: z.string(), end: z.string() })),
  })
  .nullable()
  .describe('weekly intervals when the queue may merge; null: at any time');

export const freezeRecordSchema = z
  .object({
    startedAt: timestamp,
    endsAt: timestamp.nullable(),
    reason: z.string(),
    by: z.string().describe("who froze it: the API token's name or the GitHub login"),
    allowPullRequests: z.array(z.number().int()),
  })
  .nullable()
  .describe('the freeze in force; null when not frozen');

export const mergeWindowRecordSchema = z
  .object({
    open: z.boolean(),
    nextChangeAt: timestamp.nullable().describe('closed: when it next opens; open: when it next closes'),
  })
  .nullable()
  .describe('whether the merge windows are open now; null when the queue has none');
