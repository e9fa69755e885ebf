import { createHash, randomBytes } from 'node:crypto';

/** Prefix that lets secret scanners recognise a leaked token. */
export const TOKEN_PREFIX = 'mq_';

/** A new API token: 256 random bits, shown once; only its hash is stored. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Tokens are looked up by their SHA-256: the lookup never compares the secret itself, so its timing
 * says nothing about how much of a guess was right.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What `token list` shows of a token: enough to tell tokens apart, not enough to use one. */
export function displayPrefix(token: string): string {
  return token.slice(0, TOKEN_PREFIX.length + 6);
}
