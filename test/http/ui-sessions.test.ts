import { MAX_UI_SESSIONS, UiSessions } from '../../src/http/ui/ui-sessions.js';

/** The page's sign-ins are kept in memory: idle ones are dropped on a timer and their number is capped. */

const HOUR = 3_600_000;
let now = Date.UTC(2026, 10, 27, 9);
let sessions: UiSessions;
afterEach(() => sessions.stop());

test('20,000 sign-ins keep at most the cap; the least recently used are signed out first', () => {
  sessions = new UiSessions({ nowMs: () => now });
  const first = sessions.create('tok-first');
  const ids = [first.id];
  for (let i = 1; i < 20_000; i++) {
    ids.push(sessions.create(`tok-${i}`).id);
    // The first sign-in stays in use: it is never the least recently used.
    if (i % 1000 === 0) expect(sessions.find(first.id)).not.toBeNull();
  }
  expect(sessions.size).toBe(MAX_UI_SESSIONS);
  expect(sessions.find(first.id)?.tokenId).toBe('tok-first');
  expect(sessions.find(ids[1])).toBeNull();
  expect(sessions.find(ids.at(-1))?.tokenId).toBe('tok-19999');
});

test('sessions idle for 12 hours are dropped by the timer, without anyone asking for them', async () => {
  sessions = new UiSessions({ nowMs: () => now, sweepEveryMs: 10 });
  for (let i = 0; i < 500; i++) sessions.create(`tok-${i}`);
  now += 6 * HOUR;
  const recent = sessions.create('tok-recent');
  now += 6 * HOUR + 1;
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(sessions.size).toBe(1);
  expect(sessions.find(recent.id)?.tokenId).toBe('tok-recent');
});
