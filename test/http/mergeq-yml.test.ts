import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { parseMergeqYml } from '../../src/http/mergeq-yml.js';
import { mergeqYmlJsonSchema } from '../../src/http/schemas/mergeq-yml.js';
import { createTestApp } from './helpers/test-app.js';

describe('.github/mergeq.yml', () => {
  it('reads queues by branch and by pattern with their settings', () => {
    const text = ['queues:', '  - branch: main', '    concurrency: 3', '    mode: Parallel', '  - pattern: release/*', '    batch: true', ''].join('\n');
    expect(parseMergeqYml(text)).toEqual({
      ok: true,
      config: { queues: [{ branch: 'main', settings: { concurrency: 3, mode: 'parallel' } }, { pattern: 'release/*', settings: { batch: true } }], channels: [] },
    });
  });

  it("reads chat channels' rules for this repository, each with the line that names the channel", () => {
    const text = [
      'queues:',
      '  - branch: main',
      'channels:',
      '  - channel: culprits',
      '    verdicts: [culprit, bystander]',
      '    branches: [main, "release/*"]',
      '    mentions: { octocat: U024BE7LH }',
      '  - channel: wh_123',
      '    events: ["pull_request.*", queue.frozen]',
      '',
    ].join('\n');
    expect(parseMergeqYml(text)).toEqual({
      ok: true,
      config: {
        queues: [{ branch: 'main', settings: {} }],
        channels: [
          { channel: 'culprits', line: 4, verdicts: ['culprit', 'bystander'], branches: ['main', 'release/*'], mentions: { octocat: 'U024BE7LH' } },
          { channel: 'wh_123', line: 8, events: ['pull_request.*', 'queue.frozen'] },
        ],
      },
    });
  });

  it("refuses a channel's URL or token in the file, an unknown verdict, and a channel named twice, each on its line", () => {
    const text = ['channels:', '  - channel: culprits', '    url: https://hooks.slack.com/services/T/B/X', '    verdicts: [guilty]', ''].join('\n');
    const parsed = parseMergeqYml(text);
    expect(!parsed.ok && parsed.problems).toEqual([
      { line: 3, message: expect.stringMatching(/^channels\[0\]\.url: unknown key: a channel's URL and bot token are secrets, set through webhooks\/create/) },
      { line: 4, message: expect.stringMatching(/^channels\[0\]\.verdicts\[0\]: /) },
    ]);
    const twice = parseMergeqYml(['channels:', '  - channel: culprits', '  - channel: Culprits', ''].join('\n'));
    expect(!twice.ok && twice.problems).toEqual([{ line: 3, message: 'channels[1].channel: channel Culprits is named twice' }]);
  });

  it('names the line of an unknown setting and the setting it most likely meant', () => {
    const text = ['# settings of the merge queues', 'queues:', '  - branch: main', '    concurrency: 2', '  - branch: develop', '    batch: true', '    concurency: 4', ''].join('\n');
    expect(parseMergeqYml(text)).toMatchObject({ ok: false, problem: 'line 7: queues[1].concurency: unknown setting, did you mean concurrency?' });
  });

  it('names a misspelt key inside a block on its own line, with the key valid there it meant, before the key it leaves missing', () => {
    const text = ['queues:', '  - branch: main', '    concurrency: 2', '    mergeWindows:', '      timeZone: Europe/Paris', '      windows:', '        - days: [mon, tue]', '          start: "09:00"', '          ends: "17:00"', ''].join('\n');
    const parsed = parseMergeqYml(text);
    expect(parsed).toMatchObject({ ok: false, problem: 'line 9: queues[0].mergeWindows.windows[0].ends: unknown key, did you mean end? (and 1 more)' });
    expect(!parsed.ok && parsed.problems).toEqual([
      { line: 9, message: 'queues[0].mergeWindows.windows[0].ends: unknown key, did you mean end?' },
      { line: 7, message: expect.stringMatching(/^queues\[0\]\.mergeWindows\.windows\[0\]\.end: /) },
    ]);
    // Suggestions come from the keys valid at that path, at every depth.
    const auto = parseMergeqYml(['queues:', '  - branch: main', '    autoEnqueue:', '      enabled: true', '      author: [renovate]', ''].join('\n'));
    expect(auto).toMatchObject({ ok: false, problem: 'line 5: queues[0].autoEnqueue.author: unknown key, did you mean authors?' });
  });

  it('takes restart budgets and storm settings, bounded as in the API', () => {
    const text = ['queues:', '  - branch: main', '    restartBudgets: {bystander: 5, infrastructure: 1}', '    stormRuns: 20', '    stormPause: true', ''].join('\n');
    expect(parseMergeqYml(text)).toEqual({
      ok: true,
      config: { queues: [{ branch: 'main', settings: { restartBudgets: { bystander: 5, infrastructure: 1 }, stormRuns: 20, stormPause: true } }], channels: [] },
    });
    expect(parseMergeqYml('queues:\n  - branch: main\n    restartBudgets: {bystander: 500, infrastructure: 1}\n')).toMatchObject({
      ok: false,
      problem: 'line 3: queues[0].restartBudgets.bystander: must be at most 100',
    });
  });

  it('lists every problem on its own line', () => {
    const parsed = parseMergeqYml(['queues:', '  - branch: main', '    concurrency: 0', '    concurency: 4', ''].join('\n'));
    expect(!parsed.ok && parsed.problems).toEqual([
      { line: 3, message: 'queues[0].concurrency: must be at least 1' },
      { line: 4, message: 'queues[0].concurency: unknown setting, did you mean concurrency?' },
    ]);
  });

  it('names the line of a value out of bounds, of a queue without branch or pattern, and of broken YAML', () => {
    expect(parseMergeqYml('queues:\n  - branch: main\n    concurrency: 0\n')).toMatchObject({ ok: false, problem: 'line 3: queues[0].concurrency: must be at least 1' });
    expect(parseMergeqYml('queues:\n  - branch: main\n  - batch: true\n')).toMatchObject({ ok: false, problem: 'line 3: queues[1]: needs exactly one of branch or pattern' });
    expect(parseMergeqYml('queues:\n  - branch: main\n  - branch: main\n')).toMatchObject({ ok: false, problem: 'line 3: queues[1].branch: branch main is named twice' });
    const broken = parseMergeqYml('queues:\n  - branch: main\n   concurrency: [2\n');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.problem).toMatch(/^line 3: not valid YAML/);
  });

  it('is published as a JSON Schema listing every setting of createQueue', () => {
    type Item = { properties: Record<string, unknown>; additionalProperties: boolean };
    const schema = mergeqYmlJsonSchema() as { title: string; properties: { queues: { anyOf: { type: string; items: Item }[] } } };
    expect(schema.title).toBe('.github/mergeq.yml');
    const item = schema.properties.queues.anyOf.find((s) => s.type === 'array')!.items;
    expect(Object.keys(item.properties)).toEqual(expect.arrayContaining(['branch', 'pattern', 'concurrency', 'mergeMethod', 'requiredStatuses']));
    expect(item.additionalProperties).toBe(false);
  });

  it('serves the JSON Schema at /v1/schemas/mergeq.yml.json without a token', async () => {
    const t = await createTestApp();
    try {
      const res = await request(t.app).get('/v1/schemas/mergeq.yml.json');
      expect([res.status, res.headers['content-type']]).toEqual([200, 'application/schema+json; charset=utf-8']);
      expect(JSON.parse(res.text)).toEqual(mergeqYmlJsonSchema());
    } finally {
      await t.close();
    }
  });
});

describe('.github/mergeq.yml that is not a settings file', () => {
  it('refuses aliases expanding without end, a file too large, and a top-level typo', () => {
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]', ''].join('\n');
    expect(parseMergeqYml(laughs)).toMatchObject({ ok: false, problem: expect.stringMatching(/^line 1: not valid YAML/) });
    expect(parseMergeqYml(`# ${'x'.repeat(70_000)}\n`)).toMatchObject({ ok: false, problem: 'line 1: the file is larger than 64 KB' });
    expect(parseMergeqYml('queue:\n  - branch: main\n')).toMatchObject({ ok: false, problem: 'line 1: queue: unknown key, did you mean queues?' });
    expect(parseMergeqYml('')).toEqual({ ok: true, config: { queues: [], channels: [] } });
  });
});
