import { createLogger } from '../../src/server/logger.js';

describe('the service logger', () => {
  function capture(level: Parameters<typeof createLogger>[0] = 'info') {
    const lines: string[] = [];
    return { lines, logger: createLogger(level, { write: (s: string) => void lines.push(s) }) };
  }

  it('writes one JSON line per entry with an ISO time and the level', () => {
    const { lines, logger } = capture();
    logger.info({ port: 3000 }, 'mergeq listening');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'mergeq listening', port: 3000, service: 'mergeq', time: expect.stringMatching(/Z$/) });
  });

  it('honours LOG_LEVEL', () => {
    const { lines, logger } = capture('warn');
    logger.info('quiet');
    logger.warn('loud');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['loud']);
  });

  it('redacts tokens, authorization, keys and secrets wherever they are logged by mistake', () => {
    const { lines, logger } = capture();
    logger.info({
      req: { headers: { 'x-api-token': 'mq_SECRET1', authorization: 'Bearer SECRET2', accept: 'application/json' } },
      token: 'mq_SECRET3',
      caller: { token: 'mq_SECRET4' },
      config: { gitHost: { privateKey: '-----BEGIN SECRET5', webhookSecret: 'SECRET6' }, mongodbUri: 'mongodb://u:SECRET7@h' },
    });
    const line = lines.join('');
    expect(line).not.toMatch(/SECRET/);
    expect(JSON.parse(line).req.headers).toEqual({ 'x-api-token': '[redacted]', authorization: '[redacted]', accept: 'application/json' });
  });
});
