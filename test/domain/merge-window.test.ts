import { isOpenAt, windowStatus, type MergeWindows } from '../../src/domain/merge-window.js';

const berlin = (windows: MergeWindows['windows']): MergeWindows => ({ timeZone: 'Europe/Berlin', windows });
const WEEKDAYS_9_TO_5 = berlin([{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }]);
const at = (iso: string) => new Date(iso);
const status = (mw: MergeWindows, iso: string) => {
  const s = windowStatus(mw, at(iso));
  return { open: s.open, nextChangeAt: s.nextChangeAt?.toISOString() ?? null };
};

test('windows are read in their time zone: 09:00 in Berlin is 08:00 UTC in winter and 07:00 UTC in summer', () => {
  expect(isOpenAt(WEEKDAYS_9_TO_5, at('2026-11-23T07:59:00Z'))).toBe(false);
  expect(isOpenAt(WEEKDAYS_9_TO_5, at('2026-11-23T08:00:00Z'))).toBe(true);
  expect(isOpenAt(WEEKDAYS_9_TO_5, at('2026-06-15T07:00:00Z'))).toBe(true);
  expect(isOpenAt(WEEKDAYS_9_TO_5, at('2026-11-23T16:00:00Z'))).toBe(false); // 17:00 local: the end is not in it
});

test('closed on Friday evening: the next opening is Monday 09:00 local; open: the next closing', () => {
  expect(status(WEEKDAYS_9_TO_5, '2026-11-27T18:00:00Z')).toEqual({ open: false, nextChangeAt: '2026-11-30T08:00:00.000Z' });
  expect(status(WEEKDAYS_9_TO_5, '2026-11-24T10:00:00Z')).toEqual({ open: true, nextChangeAt: '2026-11-24T16:00:00.000Z' });
});

test('across a change of daylight saving time the opening keeps its local time', () => {
  // Sunday 2026-03-29: clocks go forward in Berlin; Monday 09:00 is then 07:00 UTC.
  expect(status(WEEKDAYS_9_TO_5, '2026-03-28T12:00:00Z')).toEqual({ open: false, nextChangeAt: '2026-03-30T07:00:00.000Z' });
});

test('a window to 24:00 continued by one from 00:00 is one stretch; none at all is closed for good', () => {
  const overnight = berlin([
    { days: ['fri'], start: '20:00', end: '24:00' },
    { days: ['sat'], start: '00:00', end: '06:00' },
  ]);
  expect(status(overnight, '2026-11-27T20:00:00Z')).toEqual({ open: true, nextChangeAt: '2026-11-28T05:00:00.000Z' });
  expect(status(berlin([]), '2026-11-27T20:00:00Z')).toEqual({ open: false, nextChangeAt: null });
});
