import { resolve } from 'node:path';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';

const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n';

function problemsOf(env: Record<string, string | undefined>, options = {}): string[] {
  try {
    loadConfig(env, options);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  it('runs on an empty environment: port 3000, all interfaces, ./data, SQLite, info, no git host', () => {
    const config = loadConfig({}, { cwd: '/srv/mergeq' });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      dataDir: '/srv/mergeq/data',
      mongodbUri: null,
      logLevel: 'info',
      gitHost: { kind: 'none' },
    });
    expect(config.warnings.join('\n')).toMatch(/no git host is configured/);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ MERGEQ_PORT: '', LOG_LEVEL: ' ', MONGODB_URI: '' }).port).toBe(3000);
  });

  it('reads every variable it knows', () => {
    const config = loadConfig(
      {
        MERGEQ_PORT: '8080',
        MERGEQ_HOST: '127.0.0.1',
        MERGEQ_DATA_DIR: 'var/mq',
        MONGODB_URI: 'mongodb://mongo:27017/mergeq',
        LOG_LEVEL: 'DEBUG',
        MERGEQ_GITHOST: 'Sandbox',
      },
      { cwd: '/opt' },
    );
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('/opt', 'var/mq'),
      mongodbUri: 'mongodb://mongo:27017/mergeq',
      logLevel: 'debug',
      gitHost: { kind: 'sandbox' },
    });
  });
});

describe('loadConfig rejects bad values, naming the variable', () => {
  it.each([
    ['MERGEQ_PORT', 'abc', 'MERGEQ_PORT must be an integer from 1 to 65535 (got "abc")'],
    ['MERGEQ_PORT', '0', 'MERGEQ_PORT must be an integer from 1 to 65535 (got "0")'],
    ['MERGEQ_PORT', '65536', 'MERGEQ_PORT must be an integer from 1 to 65535 (got "65536")'],
    ['MERGEQ_PORT', '80.5', 'MERGEQ_PORT must be an integer from 1 to 65535 (got "80.5")'],
    ['MERGEQ_HOST', 'http://x', 'MERGEQ_HOST must be a host name or IP address to listen on, e.g. 0.0.0.0 (got "http://x")'],
    ['LOG_LEVEL', 'verbose', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")'],
    ['MERGEQ_GITHOST', 'gitlab', 'MERGEQ_GITHOST must be one of github, sandbox, none (got "gitlab")'],
    ['APP_ID', 'my-app', 'APP_ID must be the GitHub App\'s numeric id (got "my-app")'],
    ['GITHUB_API_URL', 'github.example.com', 'GITHUB_API_URL must be an http(s) URL, e.g. https://github.example.com/api/v3 (got "github.example.com")'],
  ])('%s=%s', (name, value, message) => {
    expect(problemsOf({ [name]: value })).toEqual([message]);
  });

  it('never echoes a secret value', () => {
    const problems = problemsOf({ MONGODB_URI: 'postgres://user:hunter2@db', PRIVATE_KEY: 'hunter2-not-a-key' });
    expect(problems).toEqual([
      'MONGODB_URI must be a MongoDB connection string (mongodb://... or mongodb+srv://...)',
      'PRIVATE_KEY must be a PEM private key ("-----BEGIN RSA PRIVATE KEY-----" ...)',
    ]);
    expect(problems.join('\n')).not.toMatch(/hunter2/);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf({ MERGEQ_PORT: 'x', LOG_LEVEL: 'loud' });
    expect(problems.map((p) => p.split(' ')[0])).toEqual(['MERGEQ_PORT', 'LOG_LEVEL']);
  });

  it('the error message lists the problems, one per line', () => {
    expect(() => loadConfig({ MERGEQ_PORT: 'x' })).toThrow(/invalid configuration:\n {2}- MERGEQ_PORT must be/);
  });
});

describe('git host selection', () => {
  const github = { APP_ID: '12345', PRIVATE_KEY: PEM, WEBHOOK_SECRET: 'shh' };

  it('is github when APP_ID and a key are set', () => {
    const config = loadConfig({ ...github, GITHUB_API_URL: 'https://ghe.example.com/api/v3' });
    expect(config.gitHost).toEqual({
      kind: 'github',
      appId: 12345,
      privateKey: PEM,
      webhookSecret: 'shh',
      apiUrl: 'https://ghe.example.com/api/v3',
      writeBudget: { perMinute: 80, perHour: 500 },
    });
  });

  it("takes the App's write budget per installation; 0 turns a limit off, a negative one is refused", () => {
    expect(loadConfig({ ...github, MERGEQ_GITHUB_WRITES_PER_MINUTE: '40', MERGEQ_GITHUB_WRITES_PER_HOUR: '0' }).gitHost).toMatchObject({
      writeBudget: { perMinute: 40, perHour: 0 },
    });
    expect(() => loadConfig({ ...github, MERGEQ_GITHUB_WRITES_PER_MINUTE: '-1' })).toThrow(/MERGEQ_GITHUB_WRITES_PER_MINUTE must be an integer from 0 to 100000/);
  });

  it("takes the API URL from probot's GHE_HOST and GHE_PROTOCOL when GITHUB_API_URL is not set", () => {
    expect(loadConfig({ ...github, GHE_HOST: 'ghe.example.com' }).gitHost).toMatchObject({ apiUrl: 'https://ghe.example.com/api/v3' });
    expect(loadConfig({ ...github, GHE_HOST: 'ghe.local', GHE_PROTOCOL: 'http' }).gitHost).toMatchObject({ apiUrl: 'http://ghe.local/api/v3' });
    expect(loadConfig({ ...github, GHE_HOST: 'ghe.local', GITHUB_API_URL: 'https://api.example.com' }).gitHost).toMatchObject({
      apiUrl: 'https://api.example.com',
    });
    expect(loadConfig(github).gitHost).toMatchObject({ apiUrl: null });
  });

  it('accepts a one-line key with literal \\n', () => {
    const config = loadConfig({ ...github, PRIVATE_KEY: PEM.replace(/\n/g, '\\n') });
    expect(config.gitHost).toMatchObject({ privateKey: PEM });
  });

  it('reads the key from PRIVATE_KEY_PATH', () => {
    const config = loadConfig(
      { APP_ID: '1', PRIVATE_KEY_PATH: '/keys/app.pem', WEBHOOK_SECRET: 's' },
      { readFile: (path: string) => (path === '/keys/app.pem' ? PEM : '') },
    );
    expect(config.gitHost).toMatchObject({ kind: 'github', privateKey: PEM });
  });

  it('names an unreadable PRIVATE_KEY_PATH', () => {
    const readFile = () => {
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    };
    expect(problemsOf({ APP_ID: '1', PRIVATE_KEY_PATH: '/nope.pem', WEBHOOK_SECRET: 's' }, { readFile })).toEqual([
      'PRIVATE_KEY_PATH cannot be read: ENOENT (got "/nope.pem")',
    ]);
  });

  it('rejects both PRIVATE_KEY and PRIVATE_KEY_PATH', () => {
    expect(problemsOf({ ...github, PRIVATE_KEY_PATH: '/k.pem' })).toEqual([
      'PRIVATE_KEY_PATH and PRIVATE_KEY are both set; set only one of them',
    ]);
  });

  it('MERGEQ_GITHOST=github without credentials names every missing variable', () => {
    const problems = problemsOf({ MERGEQ_GITHOST: 'github' });
    expect(problems).toEqual([
      'APP_ID is required for the GitHub git host (MERGEQ_GITHOST=github)',
      'PRIVATE_KEY (or PRIVATE_KEY_PATH) is required for the GitHub git host (MERGEQ_GITHOST=github)',
      'WEBHOOK_SECRET is required for the GitHub git host (MERGEQ_GITHOST=github)',
    ]);
  });

  it('APP_ID and a key without WEBHOOK_SECRET is an error, not a silent fallback', () => {
    expect(problemsOf({ APP_ID: '7', PRIVATE_KEY: PEM })).toEqual([
      'WEBHOOK_SECRET is required for the GitHub git host (MERGEQ_GITHOST=github, chosen because APP_ID and a private key are set)',
    ]);
  });

  it('APP_ID alone leaves no git host, with a warning saying why', () => {
    const config = loadConfig({ APP_ID: '7' });
    expect(config.gitHost).toEqual({ kind: 'none' });
    expect(config.warnings[0]).toMatch(/PRIVATE_KEY or PRIVATE_KEY_PATH is not set/);
  });

  it('sandbox only when asked for, even with credentials present', () => {
    expect(loadConfig({}).gitHost.kind).toBe('none');
    expect(loadConfig({ ...github, MERGEQ_GITHOST: 'sandbox' }).gitHost).toEqual({ kind: 'sandbox' });
  });
});

describe('limits and listening address', () => {
  it('reads the rate limit and the other limits from MERGEQ_* variables; 0 turns the rate limit off', () => {
    const config = loadConfig({ MERGEQ_RATE_LIMIT: '0', MERGEQ_RATE_BURST: '10', MERGEQ_BODY_TIMEOUT_SECONDS: '5', MERGEQ_HISTORY_DAYS: '30' });
    expect(config.limits).toMatchObject({ ratePerSecond: 0, rateBurst: 10, bodyTimeoutMs: 5000, headersTimeoutMs: 10_000, largeBodiesPerToken: 2, historyDays: 30 });
    expect(() => loadConfig({ MERGEQ_RATE_LIMIT: 'fast' })).toThrow('MERGEQ_RATE_LIMIT must be requests per second');
  });

  it('reads the queue lease from MERGEQ_QUEUE_LEASE_SECONDS (30 s by default) and refuses one out of bounds', () => {
    expect(loadConfig({}).queueLeaseMs).toBe(30_000);
    expect(loadConfig({ MERGEQ_QUEUE_LEASE_SECONDS: '5' }).queueLeaseMs).toBe(5_000);
    expect(() => loadConfig({ MERGEQ_QUEUE_LEASE_SECONDS: '0' })).toThrow('MERGEQ_QUEUE_LEASE_SECONDS must be an integer from 1 to 3600');
  });

  it("reads Slack's Web API URL for direct messages from MERGEQ_SLACK_API_URL (none: the dispatcher's slack.com), with its trailing slash, and refuses one that is not http(s)", () => {
    expect(loadConfig({}).slackApiUrl).toBeUndefined();
    expect(loadConfig({ MERGEQ_SLACK_API_URL: 'http://127.0.0.1:4010/api' }).slackApiUrl).toBe('http://127.0.0.1:4010/api/');
    expect(() => loadConfig({ MERGEQ_SLACK_API_URL: 'slack.com/api' })).toThrow('MERGEQ_SLACK_API_URL must be an http(s) URL');
  });

  it('the sandbox listens on 127.0.0.1 unless MERGEQ_HOST says otherwise', () => {
    expect(loadConfig({ MERGEQ_GITHOST: 'sandbox' }).host).toBe('127.0.0.1');
    expect(loadConfig({ MERGEQ_GITHOST: 'sandbox', MERGEQ_HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({}).host).toBe('0.0.0.0');
  });

  it("knows the client commands' MERGEQ_URL and MERGEQ_TOKEN: exported in a shell, they are not misspellings", () => {
    const config = loadConfig({ MERGEQ_URL: 'https://mergeq.example.com', MERGEQ_TOKEN: 'mq_x' });
    expect(config.warnings.filter((w) => w.includes('not a mergeq variable'))).toEqual([]);
  });

  it('warns about a misspelled MERGEQ_* variable, naming the closest known one but not the value', () => {
    const config = loadConfig({ MERGEQ_RATE_LIMT: 'secret-ish-value', MERGEQ_PORT: '3000', OTHER_THING: '1' });
    expect(config.warnings).toContain('MERGEQ_RATE_LIMT is not a mergeq variable and is ignored; did you mean MERGEQ_RATE_LIMIT?');
    expect(config.warnings.join('\n')).not.toContain('secret-ish-value');
    expect(config.warnings.join('\n')).not.toContain('OTHER_THING');
  });
});
