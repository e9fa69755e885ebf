import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Sign-ins expire after this long without use. */
const IDLE_MS = 12 * 3_600_000;
/** Sessions kept at most: past this, the least recently used is signed out. */
export const MAX_UI_SESSIONS = 10_000;
/** How often expired sessions are dropped. */
const SWEEP_EVERY_MS = 10 * 60_000;

export interface UiSession {
  /** The API token the user signed in with, by id: revoking the token ends the session. */
  tokenId: string;
  /** Sent back in the `x-csrf-token` header of every change. */
  csrfToken: string;
  lastUsedMs: number;
}

export interface UiSessionOptions {
  nowMs: () => number;
  maxSessions?: number;
  sweepEveryMs?: number;
}

/**
 * Web page sessions, in memory: a sign-in lasts until sign-out, a restart or 12 idle hours. The
 * cookie holds only a random session id; the API token never leaves the server after sign-in. Idle
 * sessions are dropped on a timer and the number kept is capped, so sign-ins alone cannot grow memory.
 */
export class UiSessions {
  /** In order of last use (a used session moves to the end): the first is the least recently used. */
  private readonly sessions = new Map<string, UiSession>();
  private readonly max: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: UiSessionOptions) {
    this.max = options.maxSessions ?? MAX_UI_SESSIONS;
    this.timer = setInterval(() => this.sweep(), options.sweepEveryMs ?? SWEEP_EVERY_MS);
    this.timer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  create(tokenId: string): { id: string; session: UiSession } {
    const id = randomBytes(32).toString('base64url');
    const session = { tokenId, csrfToken: randomBytes(32).toString('base64url'), lastUsedMs: this.options.nowMs() };
    this.sessions.set(id, session);
    for (const oldest of this.sessions.keys()) {
      if (this.sessions.size <= this.max) break;
      this.sessions.delete(oldest);
    }
    return { id, session };
  }

  find(id: string | undefined): UiSession | null {
    if (!id) return null;
    const session = this.sessions.get(id);
    if (!session) return null;
    const nowMs = this.options.nowMs();
    this.sessions.delete(id);
    if (nowMs - session.lastUsedMs > IDLE_MS) return null;
    session.lastUsedMs = nowMs;
    this.sessions.set(id, session);
    return session;
  }

  end(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  /** Drops the sessions idle for longer than 12 hours (the oldest come first: stops at the first live one). */
  sweep(): void {
    const nowMs = this.options.nowMs();
    for (const [id, session] of this.sessions) {
      if (nowMs - session.lastUsedMs <= IDLE_MS) break;
      this.sessions.delete(id);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export function csrfMatches(session: UiSession, presented: string | undefined): boolean {
  if (!presented) return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
