import { EVENT_TYPES, type EventType } from './event-types.js';

/** A subscription's `events` entry: an event type, `group.*`, or `*`. */
export const EVENT_PATTERN = /^(\*|[a-z_]+\.\*|[a-z_]+\.[a-z_]+)$/;

/** Whether the pattern names at least one event type (a typo such as `pull_request.merge` does not). */
export function patternIsKnown(pattern: string): boolean {
  return EVENT_TYPES.some((type) => matchesPattern(type, pattern));
}

export function matchesPattern(type: EventType, pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return type === pattern;
}

export function matchesAny(type: EventType, patterns: readonly string[]): boolean {
  return patterns.some((p) => matchesPattern(type, p));
}
