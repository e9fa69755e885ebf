import type { Scheduler, TimerHandle } from '../../domain/scheduler.js';
import { WRITE_CLASSES, type WriteClass, type WriteKind } from './write-class.js';

/** Content-creating requests one installation may make, per minute and per hour; 0 turns a limit off. */
export interface WriteBudgetLimits {
  perMinute: number;
  perHour: number;
  /** The length of the `perHour` window: an hour, unless GitHub's limits are scaled down (a benchmark). */
  hourMs?: number;
}

/** GitHub's secondary limits on an App installation's content-creating requests. */
export const GITHUB_WRITE_LIMITS: WriteBudgetLimits = { perMinute: 80, perHour: 500 };

/** What a write that was never sent resolves with: a newer write said it instead, or it was dropped. */
export const NOT_SENT = Symbol('not sent');

export interface WriteRequest<T> {
  cls: WriteClass;
  kind: WriteKind;
  /** Writes with one key say one thing (a status on one commit and context): a newer one replaces a queued older one. */
  key: string | null;
  send: () => Promise<T>;
}

/** How GitHub's answer to a write asks for a pause: its length in ms, or null when it does not. */
export type PauseFor = (error: unknown) => number | null;

export interface WriteBudgetEvents {
  sent?(installation: number, kind: WriteKind): void;
  /** GitHub refused a write for a rate limit anyway: the installation pauses, and the write waits. */
  refused?(installation: number, kind: WriteKind, pauseMs: number): void;
  /** A low-class write was never sent (replaced by a newer one, too old, or the hour's reserve). */
  dropped?(installation: number, kind: WriteKind, why: 'replaced' | 'stale' | 'reserve'): void;
}

export interface WriteBudgetOptions extends WriteBudgetLimits {
  now: () => number;
  scheduler: Scheduler;
  pauseFor: PauseFor;
  events?: WriteBudgetEvents;
  /** A low-class write that waited this long is dropped (the next change says it anyway). */
  lowMaxWaitMs?: number;
  /** Share of the hour's budget kept for the queue's own writes and final statuses. */
  lowReserve?: number;
}

interface Job {
  request: WriteRequest<unknown>;
  queuedAt: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/**
 * How much longer than its window a write is counted in it: GitHub counts a write when it arrives,
 * which is a little after it was sent, and by more for one write than another (a slow connection, a
 * clock apart), so a window opened exactly on time could be shut on GitHub's side.
 */
export const WINDOW_MARGIN_MS = 2_000;

/**
 * One installation's GitHub writes (github.md, "Write budget"): sent one at a time, spaced evenly so
 * that no minute holds more than `perMinute` and no hour more than `perHour`, in class order — the
 * queue's builds, fast-forwards and merges first, then final statuses, comments, and last pending
 * statuses, comment edits and reactions, which are coalesced by key and dropped first. A refusal for a
 * rate limit pauses every write of the installation for the time GitHub gives, and the refused write
 * is sent again after it: no caller sees a rate limit.
 */
export class InstallationWriteBudget {
  private readonly queues = new Map<WriteClass, Job[]>(WRITE_CLASSES.map((c) => [c, []]));
  private readonly byKey = new Map<string, Job>();
  /** When each write of the last hour was sent, oldest first. */
  private readonly sentAt: number[] = [];
  private pausedUntil = 0;
  private sending = false;
  private timer: TimerHandle | null = null;
  private readonly spacingMs: number;
  private readonly hourMs: number;

  constructor(
    private readonly installation: number,
    private readonly o: WriteBudgetOptions,
  ) {
    this.spacingMs = o.perMinute > 0 ? MINUTE_MS / o.perMinute : 0;
    this.hourMs = o.hourMs ?? HOUR_MS;
  }

  submit<T>(request: WriteRequest<T>): Promise<T | typeof NOT_SENT> {
    return new Promise((resolve, reject) => {
      const job: Job = { request, queuedAt: this.o.now(), resolve: resolve as (v: unknown) => void, reject };
      const older = request.key === null ? undefined : this.byKey.get(request.key);
      if (older) this.remove(older, 'replaced');
      if (request.key !== null) this.byKey.set(request.key, job);
      this.queues.get(request.cls)!.push(job);
      this.pump();
    });
  }

  /** Writes this installation may still send in the current minute and hour (Infinity without a limit). */
  remaining(): { minute: number; hour: number } {
    const now = this.o.now();
    this.forgetBefore(now - this.hourMs - WINDOW_MARGIN_MS);
    const lastMinute = this.sentAt.filter((t) => t > now - MINUTE_MS - WINDOW_MARGIN_MS).length;
    return {
      minute: this.o.perMinute > 0 ? Math.max(0, this.o.perMinute - lastMinute) : Infinity,
      hour: this.o.perHour > 0 ? Math.max(0, this.o.perHour - this.sentAt.length) : Infinity,
    };
  }

  /** Whether a write waits for its turn on the scheduler's clock (the spacing, a window, a pause). */
  get waitingForTime(): boolean {
    return this.timer !== null;
  }

  /** Writes waiting to be sent. */
  get waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  private pump(): void {
    if (this.sending || this.timer) return;
    const job = this.next();
    if (!job) return;
    const wait = this.waitMs(this.o.now());
    if (wait > 0) {
      this.timer = this.o.scheduler.schedule(wait, () => {
        this.timer = null;
        this.pump();
      });
      return;
    }
    this.take(job);
    this.sending = true;
    this.sentAt.push(this.o.now());
    this.o.events?.sent?.(this.installation, job.request.kind);
    job.request.send().then(
      (value) => job.resolve(value),
      (error) => {
        const pauseMs = this.o.pauseFor(error);
        if (pauseMs === null) return job.reject(error);
        this.pausedUntil = Math.max(this.pausedUntil, this.o.now() + pauseMs);
        this.o.events?.refused?.(this.installation, job.request.kind, pauseMs);
        if (job.request.key !== null && this.byKey.has(job.request.key)) {
          // A newer write with its key came meanwhile: that one says it.
          this.o.events?.dropped?.(this.installation, job.request.kind, 'replaced');
          return job.resolve(NOT_SENT);
        }
        // Sent again first once the pause is over (it keeps its place ahead of its class).
        this.queues.get(job.request.cls)!.unshift(job);
        if (job.request.key !== null) this.byKey.set(job.request.key, job);
      },
    ).finally(() => {
      this.sending = false;
      this.pump();
    });
  }

  /** The next write to send, in class order; low-class writes that waited too long, or that the hour's reserve holds back, are dropped. */
  private next(): Job | undefined {
    const now = this.o.now();
    for (const cls of WRITE_CLASSES) {
      const queue = this.queues.get(cls)!;
      while (cls === 'low' && queue.length > 0 && this.lowDropReason(queue[0]!, now)) this.remove(queue[0]!, this.lowDropReason(queue[0]!, now)!);
      if (queue.length > 0) return queue[0];
    }
    return undefined;
  }

  private lowDropReason(job: Job, now: number): 'stale' | 'reserve' | null {
    if (now - job.queuedAt > (this.o.lowMaxWaitMs ?? 10 * MINUTE_MS)) return 'stale';
    if (this.o.perHour > 0 && this.remaining().hour <= Math.ceil(this.o.perHour * (this.o.lowReserve ?? 0.1))) return 'reserve';
    return null;
  }

  /** How long until a write may be sent: the pause, the spacing, and both windows. */
  private waitMs(now: number): number {
    this.forgetBefore(now - this.hourMs - WINDOW_MARGIN_MS);
    let until = Math.max(this.pausedUntil, (this.sentAt.at(-1) ?? -Infinity) + this.spacingMs);
    const n = this.sentAt.length;
    if (this.o.perHour > 0 && n >= this.o.perHour) until = Math.max(until, this.sentAt[n - this.o.perHour]! + this.hourMs + WINDOW_MARGIN_MS);
    const inMinute = this.sentAt.filter((t) => t > now - MINUTE_MS - WINDOW_MARGIN_MS);
    if (this.o.perMinute > 0 && inMinute.length >= this.o.perMinute) until = Math.max(until, inMinute[inMinute.length - this.o.perMinute]! + MINUTE_MS + WINDOW_MARGIN_MS);
    return until - now;
  }

  private forgetBefore(t: number): void {
    while (this.sentAt.length > 0 && this.sentAt[0]! <= t) this.sentAt.shift();
  }

  /** Takes a job off its queue to send it. */
  private take(job: Job): void {
    const queue = this.queues.get(job.request.cls)!;
    queue.splice(queue.indexOf(job), 1);
    if (job.request.key !== null && this.byKey.get(job.request.key) === job) this.byKey.delete(job.request.key);
  }

  /** Takes a job off its queue unsent. */
  private remove(job: Job, why: 'replaced' | 'stale' | 'reserve'): void {
    this.take(job);
    this.o.events?.dropped?.(this.installation, job.request.kind, why);
    job.resolve(NOT_SENT);
  }
}

/** The write budgets of every installation of the App (one each, shared by all its clients). */
export class WriteBudget {
  private readonly installations = new Map<number, InstallationWriteBudget>();

  constructor(private readonly options: WriteBudgetOptions) {}

  for(installation: number): InstallationWriteBudget {
    let budget = this.installations.get(installation);
    if (!budget) this.installations.set(installation, (budget = new InstallationWriteBudget(installation, this.options)));
    return budget;
  }

  /** Each installation's writes left in the current minute and hour. */
  remaining(): { installation: number; minute: number; hour: number }[] {
    return [...this.installations].map(([installation, b]) => ({ installation, ...b.remaining() }));
  }

  /** Whether some installation's next write waits on the scheduler's clock. */
  get waitingForTime(): boolean {
    return [...this.installations.values()].some((b) => b.waitingForTime);
  }

  get limits(): WriteBudgetLimits {
    return { perMinute: this.options.perMinute, perHour: this.options.perHour, ...(this.options.hourMs ? { hourMs: this.options.hourMs } : {}) };
  }
}
