import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Sign-ins expire after this long without use. */
const IDLE_MS = 12 * 3_600_000;

export interface UiSession {
  /** The API token the user signed in with, by id: revoking the token ends the session. */
  tokenId: string;
  /** Sent back in the `x-csrf-token` header of every change. */
  csrfToken: string;
  lastUsedMs: number;
}

/**
 * Web page sessions, in memory: a sign-in lasts until sign-out, a restart or 12 idle hours. The
 * cookie holds only a random session id; the API token never leaves the server after sign-in.
 */
export class UiSessions {
  private readonly sessions = new Map<string, UiSession>();

  create(tokenId: string, nowMs: number): { id: string; session: UiSession } {
    const id = randomBytes(32).toString('base64url');
    const session = { tokenId, csrfToken: randomBytes(32).toString('base64url'), lastUsedMs: nowMs };
    this.sessions.set(id, session);
    return { id, session };
  }

  find(id: string | undefined, nowMs: number): UiSession | null {
    if (!id) return null;
    const session = this.sessions.get(id);
    if (!session) return null;
    if (nowMs - session.lastUsedMs > IDLE_MS) {
      this.sessions.delete(id);
      return null;
    }
    session.lastUsedMs = nowMs;
    return session;
  }

  end(id: string | undefined): void {
    if (id) this.sessions.delete(id);
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
