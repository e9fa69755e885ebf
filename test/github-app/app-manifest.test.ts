import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { parse } from 'yaml';
import { mergeqApp } from '../../src/github-app/mergeq-app.js';
import type { AppDeps } from '../../src/github-app/app-deps.js';

/** app.yml subscribes to every event the App handles (GitHub delivers nothing else), installation aside. */
test('every event the App handles is one app.yml subscribes to', () => {
  const handled: string[] = [];
  const app = { on: (names: string | string[]) => handled.push(...[names].flat()) };
  mergeqApp({ logger: pino({ level: 'silent' }) } as AppDeps)(app as never, {} as never);
  const manifest = parse(readFileSync(new URL('../../app.yml', import.meta.url), 'utf8')) as { default_events: string[] };
  const events = new Set(handled.map((name) => name.split('.')[0]!).filter((name) => !name.startsWith('installation')));
  expect(events.size).toBeGreaterThan(5);
  expect([...events].filter((e) => !manifest.default_events.includes(e))).toEqual([]);
  expect(handled).toEqual(expect.arrayContaining(['pull_request.labeled', 'pull_request.unlabeled']));
});
