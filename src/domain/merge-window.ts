import { TZDate } from '@date-fns/tz';

/** Weekdays in `Date.getDay()` order. */
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One weekly interval, local to the queue's time zone: `start` to `end` ("HH:MM"; `end` may be "24:00"). */
export interface WeeklyWindow {
  days: Weekday[];
  start: string;
  end: string;
}

/** When a queue may merge: any of `windows`, read in the IANA zone `timeZone`. */
export interface MergeWindows {
  timeZone: string;
  windows: WeeklyWindow[];
}

export interface WindowStatus {
  open: boolean;
  /** Closed: when it next opens; open: when it next closes. null when it never changes. */
  nextChangeAt: Date | null;
}

/** Whether `timeZone` is an IANA zone this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** "HH:MM" → minutes after midnight. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

export function isOpenAt(mw: MergeWindows, at: Date): boolean {
  const local = new TZDate(at.getTime(), mw.timeZone);
  const day = WEEKDAYS[local.getDay()]!;
  const minute = local.getHours() * 60 + local.getMinutes();
  return mw.windows.some((w) => w.days.includes(day) && minutesOf(w.start) <= minute && minute < minutesOf(w.end));
}

/**
 * Whether the windows are open at `now`, and when that next changes. Only window edges can change
 * it, so the edges of the coming eight local days are tried in time order, day by day, until one
 * changes it (a window ending at 24:00 that another continues at 00:00 is no change).
 */
export function windowStatus(mw: MergeWindows, now: Date): WindowStatus {
  const open = isOpenAt(mw, now);
  const today = new TZDate(now.getTime(), mw.timeZone);
  for (let offset = 0; offset <= 8; offset++) {
    for (const at of edgesOn(mw, today.getFullYear(), today.getMonth(), today.getDate() + offset)) {
      if (at > now.getTime() && isOpenAt(mw, new Date(at)) !== open) return { open, nextChangeAt: new Date(at) };
    }
  }
  return { open, nextChangeAt: null };
}

/** The instants of the window edges of one local day, in time order. */
function edgesOn(mw: MergeWindows, year: number, month: number, date: number): number[] {
  const weekday = WEEKDAYS[new TZDate(year, month, date, mw.timeZone).getDay()]!;
  const minutes = new Set<number>();
  for (const w of mw.windows) {
    if (w.days.includes(weekday)) for (const edge of [w.start, w.end]) minutes.add(minutesOf(edge));
  }
  return [...minutes].sort((a, b) => a - b).map((m) => new TZDate(year, month, date, Math.floor(m / 60), m % 60, mw.timeZone).getTime());
}
