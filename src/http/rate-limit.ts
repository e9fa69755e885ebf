import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Clock } from '../domain/clock.js';
import { callerOf } from './auth.js';
import { httpErrors } from './problem.js';

export interface RateLimitOptions {
  /** Requests per second a token may sustain. */
  ratePerSecond: number;
  /** Requests a token may make at once after being idle. */
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { ratePerSecond: 50, burst: 200 };

interface Bucket {
  tokens: number;
  atMs: number;
}

/** A token bucket per API token, in memory (each replica limits on its own). */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly options: RateLimitOptions) {}

  /** Takes one request from `key`'s bucket: 0 when allowed, else the seconds until one is available. */
  take(key: string, nowMs: number): number {
    const { ratePerSecond, burst } = this.options;
    const bucket = this.buckets.get(key) ?? { tokens: burst, atMs: nowMs };
    const elapsed = Math.max(0, nowMs - bucket.atMs) / 1000;
    const tokens = Math.min(burst, bucket.tokens + elapsed * ratePerSecond);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, atMs: nowMs });
      this.forgetFullBuckets(nowMs);
      return 0;
    }
    this.buckets.set(key, { tokens, atMs: nowMs });
    return Math.max(1, Math.ceil((1 - tokens) / ratePerSecond));
  }

  /** A bucket that has refilled completely is the same as no bucket: drop it to bound memory. */
  private forgetFullBuckets(nowMs: number): void {
    if (this.buckets.size < 10_000) return;
    const fullAfterMs = (this.options.burst / this.options.ratePerSecond) * 1000;
    for (const [key, b] of this.buckets) {
      if (nowMs - b.atMs >= fullAfterMs) this.buckets.delete(key);
    }
  }
}

/** 429 `rate_limited` with `Retry-After` once a token exceeds its rate. Runs after `requireToken`. */
export function rateLimit(options: RateLimitOptions, clock: Clock): RequestHandler {
  const buckets = new TokenBuckets(options);
  return (_req: Request, res: Response, next: NextFunction) => {
    const waitSeconds = buckets.take(callerOf(res).token.id, clock.now().getTime());
    if (waitSeconds > 0) {
      res.set('Retry-After', String(waitSeconds));
      throw httpErrors.rateLimited(waitSeconds);
    }
    next();
  };
}

/**
 * 429 once a client address exceeds the rate: for traffic no token vouches for (webhooks, the
 * sandbox, requests with an unknown token). Behind a proxy every client shares the proxy's address.
 */
export function addressRateLimit(options: RateLimitOptions, clock: Clock): { limit: RequestHandler; take: (req: Request) => number } {
  const buckets = new TokenBuckets(options);
  const take = (req: Request) => buckets.take(`addr:${req.socket.remoteAddress ?? 'unknown'}`, clock.now().getTime());
  const limit: RequestHandler = (req, res, next) => {
    const waitSeconds = take(req);
    if (waitSeconds > 0) {
      res.set('Retry-After', String(waitSeconds));
      throw httpErrors.rateLimited(waitSeconds, 'client address');
    }
    next();
  };
  return { limit, take };
}
