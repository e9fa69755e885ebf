/** How long stored data is kept (docs/configuration.md, "Retention"). */

/** A target list is dropped this long after its head was last in a queue (or it was put, if never). */
export const TARGETS_UNUSED_DAYS = 3;

/** Target-name bytes one repository may hold; past it, its least recently used lists are dropped. */
export const TARGET_BYTES_PER_REPO = 200 * 1024 * 1024;

export const DEFAULT_HISTORY_DAYS = 90;

const DAY_MS = 24 * 60 * 60 * 1000;

export function daysBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString();
}

/** The bytes a target list counts against its repository's cap: the UTF-8 of its names. */
export function targetNameBytes(names: readonly string[]): number {
  let bytes = 0;
  for (const name of names) bytes += Buffer.byteLength(name);
  return bytes;
}
