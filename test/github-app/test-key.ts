import { generateKeyPairSync } from 'node:crypto';

/** A real RSA key for the App's JWTs in tests; generated once per test file (it takes a moment). */
export const TEST_PRIVATE_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;
