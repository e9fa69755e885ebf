/** Status, JSON body, headers (as the fake GitHub answers). */
export type LimitReply = [number, unknown, Record<string, string>];

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * GitHub's secondary limits on content-creating requests of one installation, as the fake enforces
 * them: over `perMinute` in any minute or `perHour` in any hour, a write is refused with 403, GitHub's
 * message and a `retry-after` (seconds until a slot frees), and does not happen. Refused writes do not
 * count against the windows.
 */
export class ContentLimits {
  /** When each accepted write came, oldest first (an hour's worth). */
  private readonly accepted: number[] = [];
  refused = 0;
  /** The most writes accepted within any 60 s (sliding). */
  peakPerMinute = 0;

  constructor(
    readonly perMinute: number,
    readonly perHour: number,
    private readonly now: () => number,
    /** The length of the `perHour` window (an hour; shorter for GitHub's limits scaled down). */
    private readonly hourMs = HOUR_MS,
  ) {}

  /** The writes accepted within the last `hourMs`. */
  inLastHour(): number {
    const now = this.now();
    return this.accepted.filter((t) => t > now - this.hourMs).length;
  }

  /** A refusal to answer, or null when the write may happen (then it is counted). */
  refuse(): LimitReply | null {
    const now = this.now();
    while (this.accepted.length > 0 && this.accepted[0]! <= now - this.hourMs) this.accepted.shift();
    const lastMinute = this.accepted.filter((t) => t > now - MINUTE_MS);
    const waitMs =
      lastMinute.length >= this.perMinute
        ? lastMinute[lastMinute.length - this.perMinute]! + MINUTE_MS - now
        : this.accepted.length >= this.perHour
          ? this.accepted[this.accepted.length - this.perHour]! + this.hourMs - now
          : 0;
    if (waitMs > 0) {
      this.refused++;
      return [
        403,
        { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits' },
        { 'retry-after': String(Math.ceil(waitMs / 1000)) },
      ];
    }
    this.accepted.push(now);
    this.peakPerMinute = Math.max(this.peakPerMinute, lastMinute.length + 1);
    return null;
  }
}
