import { generateKeyPairSync } from 'node:crypto';
import { ProbotOctokit } from 'probot';

/** A real RSA key for the App's JWTs in tests; generated once per test file (it takes a moment). */
export const TEST_PRIVATE_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

/** probot's client with its retries and its throttling (a second between writes) off, so tests are quick and exact. */
export const TestOctokit = ProbotOctokit.defaults((o: { throttle?: object }) => ({
  ...o,
  retry: { enabled: false },
  throttle: { ...o.throttle, enabled: false },
}));
