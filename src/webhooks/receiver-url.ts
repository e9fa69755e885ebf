import { isIP } from 'node:net';
import { MAX_URL_LENGTH } from '../domain/webhook-delivery.js';

/**
 * Why a receiver URL is refused, or null: it must be https, or http to a loopback address (a
 * receiver on the same machine, tests). No credentials in it.
 */
export function receiverUrlProblem(value: string): string | null {
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL, e.g. https://example.com/hooks/mergeq';
  }
  if (url.username || url.password) return 'must not contain a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return null;
  if (url.protocol === 'http:') return 'must be https (http only to a loopback address such as 127.0.0.1 or localhost)';
  return 'must be an https URL';
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}
