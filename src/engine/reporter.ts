import type { Logger } from 'pino';
import type { Entry, ReportChannelName } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import { isActive } from '../domain/states.js';
import type { Clock } from '../domain/clock.js';
import type { Scheduler, TimerHandle } from '../domain/scheduler.js';
import { owesFinalReport } from '../planner/index.js';
import { describeError, isTransient } from './retry.js';

/** One thing said on a PR about its entry (the commit status, the comment). */
export interface ReportChannel {
  readonly name: ReportChannelName;
  /** Whether the queue says this at all (its settings, the git host). */
  enabled(doc: QueueDoc): boolean;
  /** What decides the report: it is said again only when this changes; null: nothing to say now. */
  key(entry: Entry): string | null;
  /** How long `key` must hold before it is said, when longer than the reporter's debounce. */
  holdMs?(entry: Entry, key: string): number;
  /** Whether this entry speaks for its PR (an older submission of a PR submitted again does not). */
  speaksFor?(doc: QueueDoc, entry: Entry): boolean;
  /** Says it on the git host. */
  write(doc: QueueDoc, entry: Entry): Promise<void>;
}

export interface ReporterOptions {
  channels: readonly ReportChannel[];
  clock: Clock;
  scheduler: Scheduler;
  logger: Logger;
  /** How long a state must hold before it is said: a PR that moves on at once is said once. Ended states are said at once. */
  debounceMs: number;
  /** A report the git host refused is tried again after this, a few times. */
  retryMs: number;
  /** Records that `key` was said (persisted with the entry, so a restart does not say it again). */
  onReported(queueId: string, entryId: string, channel: ReportChannelName, key: string): Promise<void>;
  /**
   * Before the first write on a channel about an entry in the queue: records that `key` is on its
   * way, so that the entry ending meanwhile, or a restart, still owes the PR its final word. False:
   * the entry has ended (or gone) meanwhile, and nothing is written: its final word, if any, says it.
   */
  onReporting(queueId: string, entryId: string, channel: ReportChannelName, key: string): Promise<boolean>;
  /** Resolves when the queue's own work (reconciles) is done for now: reports give way to it. */
  queueIdle(queueId: string): Promise<void>;
  /** How long a report gives way at most, so that a queue always busy still gets its PRs told. */
  maxWaitMs: number;
}

interface Pending {
  doc: QueueDoc;
  entry: Entry;
  channel: ReportChannel;
  key: string;
  dueAt: number;
  failures: number;
}

/** Attempts of one report before it is given up (the next change of the PR is said anyway). */
const MAX_ATTEMPTS = 5;

/**
 * Says on each PR what the queue did with it, apart from the queue's work: statuses and comments are
 * GitHub writes, spaced about a second apart per installation, so they are coalesced (only the
 * latest state of a PR is said, once it has held `debounceMs`), written one at a time, after the
 * queue's own writes, and never again for what was already said (the key is kept on the entry).
 */
export class Reporter {
  private readonly pending = new Map<string, Pending>();
  /** The document last offered per queue: a report is written with its queue's latest document. */
  private readonly offered = new Map<string, QueueDoc>();
  /** The key being written per report (queue|entry|channel): its marks' commits do not ask for it again. */
  private readonly inFlight = new Map<string, string>();
  /** Ended entries whose last word their channel will not say (disabled, or no longer speaking for the PR): being marked settled. */
  private readonly settling = new Set<string>();
  private timer: TimerHandle | null = null;
  private timerAt: number | null = null;
  private draining: Promise<void> | null = null;

  constructor(private readonly options: ReporterOptions) {}

  /**
   * The document as committed: what each of its entries should say now. Only entries that are not
   * the very objects offered last for this queue are looked at (commits copy what they change), so
   * an offer costs what changed, not the depth of the queue.
   */
  offer(doc: QueueDoc): void {
    const prev = this.offered.get(doc.id);
    if (prev === doc) return;
    this.offered.set(doc.id, doc);
    const now = this.options.clock.now().getTime();
    const changed = prev && prev.settings === doc.settings ? changedEntries(prev, doc) : doc.entries;
    for (const channel of this.options.channels) {
      const enabled = channel.enabled(doc);
      for (const entry of changed) {
        const id = `${doc.id}|${entry.id}|${channel.name}`;
        const key = enabled ? channel.key(entry) : null;
        if (key === null || entry.reported?.[channel.name] === key || this.inFlight.get(id) === key || (channel.speaksFor && !channel.speaksFor(doc, entry))) {
          this.pending.delete(id);
          if (key !== this.inFlight.get(id) && owesFinalReport(entry, channel.name)) this.settle(doc.id, entry, channel.name, id);
          continue;
        }
        const known = this.pending.get(id);
        if (known?.key === key) {
          this.pending.set(id, { ...known, entry });
          continue;
        }
        const dueAt = isActive(entry.state) ? now + Math.max(this.options.debounceMs, channel.holdMs?.(entry, key) ?? 0) : now;
        this.pending.set(id, { doc, entry, channel, key, dueAt, failures: 0 });
      }
    }
    this.kick();
  }

  /** Saying something now. */
  get busy(): boolean {
    return this.draining !== null;
  }

  /** Resolves when nothing due is left to say (later debounced reports stay pending). */
  async whenIdle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** The queue is gone (deleted): nothing more is said for it. */
  forget(queueId: string): void {
    this.offered.delete(queueId);
    for (const [id, p] of this.pending) if (p.doc.id === queueId) this.pending.delete(id);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
    this.timerAt = null;
  }

  private kick(): void {
    if (this.draining) return;
    const now = this.options.clock.now().getTime();
    let next = Infinity;
    for (const p of this.pending.values()) next = Math.min(next, p.dueAt);
    if (next === Infinity) return;
    if (next <= now) {
      this.draining = this.drain().finally(() => {
        this.draining = null;
        this.kick();
      });
      return;
    }
    if (this.timerAt !== null && this.timerAt <= next) return;
    this.timer?.cancel();
    this.timerAt = next;
    this.timer = this.options.scheduler.schedule(next - now, () => {
      this.timer = null;
      this.timerAt = null;
      this.kick();
    });
  }

  private async giveWay(queueId: string): Promise<void> {
    let timer: TimerHandle | null = null;
    const waited = new Promise<void>((resolve) => {
      timer = this.options.scheduler.schedule(this.options.maxWaitMs, resolve);
    });
    await Promise.race([this.options.queueIdle(queueId), waited]);
    (timer as TimerHandle | null)?.cancel();
  }

  /** Says every due report, one at a time, each after its queue's own work. */
  private async drain(): Promise<void> {
    for (;;) {
      const now = this.options.clock.now().getTime();
      const due = [...this.pending.entries()].find(([, p]) => p.dueAt <= now);
      if (!due) return;
      const [id, first] = due;
      await this.giveWay(first.doc.id);
      // The latest word on it may have come while waiting.
      const p = this.pending.get(id);
      if (!p || p.dueAt > this.options.clock.now().getTime()) continue;
      this.pending.delete(id);
      this.inFlight.set(id, p.key);
      try {
        // The first word on a channel about a PR in the queue is marked on its way first: a PR told
        // anything is told how it ended. (A first word that is the last needs no mark.)
        const firstWhileActive = p.entry.reported?.[p.channel.name] === undefined && isActive(p.entry.state);
        const write = !firstWhileActive || (await this.options.onReporting(p.doc.id, p.entry.id, p.channel.name, p.key));
        if (!write) continue;
        // A queued PR is said with its queue's latest document (its position); an ended one with the
        // document it ended in (its deciding run, which the latest may have archived).
        const doc = isActive(p.entry.state) ? (this.offered.get(p.doc.id) ?? p.doc) : p.doc;
        await p.channel.write(doc, p.entry);
        await this.options.onReported(p.doc.id, p.entry.id, p.channel.name, p.key);
      } catch (err) {
        // A refusal for good (a PR the git host does not know stays unknown) is not tried again, nor
        // anything for a queue forgotten meanwhile.
        const retry = !refusedForGood(err) && p.failures + 1 < MAX_ATTEMPTS && this.offered.has(p.doc.id);
        this.logRefusal(err, p, retry);
        const retryAt = this.options.clock.now().getTime() + this.options.retryMs;
        if (retry && !this.pending.has(id)) this.pending.set(id, { ...p, failures: p.failures + 1, dueAt: retryAt });
        // A final word given up is marked said anyway: the entry is no longer kept for it.
        if (!retry && !isActive(p.entry.state)) await this.options.onReported(p.doc.id, p.entry.id, p.channel.name, p.key).catch(() => undefined);
      } finally {
        this.inFlight.delete(id);
      }
    }
  }

  /** Marks an ended entry's channel settled (its state said), once, so that it can be archived. */
  private settle(queueId: string, entry: Entry, channel: ReportChannelName, id: string): void {
    if (this.settling.has(id)) return;
    this.settling.add(id);
    void this.options
      .onReported(queueId, entry.id, channel, entry.state)
      .catch((err: unknown) => this.options.logger.warn({ err, queueId, pr: entry.prNumber, report: channel }, 'could not mark a report settled'))
      .finally(() => this.settling.delete(id));
  }

  private logRefusal(err: unknown, p: Pending, retry: boolean): void {
    const fields = { ...refusalFields(err), queueId: p.doc.id, pr: p.entry.prNumber, report: p.channel.name };
    this.options.logger.warn(fields, retry ? 'could not report on the pull request; trying again later' : 'could not report on the pull request; given up');
  }
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** A 4xx answer of the git host that is not a rate limit: asking again gets the same answer. */
function refusedForGood(err: unknown): boolean {
  const status = statusOf(err);
  return status !== undefined && status >= 400 && status < 500 && !isTransient(err);
}

/** A git host's answer (it has a status) is one line; anything else is unexpected and keeps its stack. */
function refusalFields(err: unknown): Record<string, unknown> {
  const status = statusOf(err);
  return status === undefined ? { err } : { status, error: describeError(err) };
}

/**
 * The entries of `next` that are not the same objects in `prev`, and every entry of a PR that has a
 * new entry (a PR submitted again: its earlier entry may no longer speak for it).
 */
function changedEntries(prev: QueueDoc, next: QueueDoc): readonly Entry[] {
  const changed: Entry[] = [];
  let prevById: Map<string, Entry> | null = null;
  let resubmitted: Set<number> | null = null;
  for (let i = 0; i < next.entries.length; i++) {
    const entry = next.entries[i]!;
    if (prev.entries[i] === entry) continue;
    // Entries are appended in seq order: a seq from nextSeq on is an entry prev did not have.
    const isNew = entry.seq >= prev.nextSeq || !(prevById ??= new Map(prev.entries.map((e) => [e.id, e]))).has(entry.id);
    if (prevById?.get(entry.id) === entry) continue;
    changed.push(entry);
    if (isNew) (resubmitted ??= new Set()).add(entry.prNumber);
  }
  if (resubmitted) for (const e of next.entries) if (resubmitted.has(e.prNumber) && !changed.includes(e)) changed.push(e);
  return changed;
}
