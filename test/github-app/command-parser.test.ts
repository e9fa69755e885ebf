import { USAGE, parseComment } from '../../src/github-app/command-parser.js';

describe('parseComment', () => {
  test.each([
    ['/merge', { kind: 'submit', noBatch: false }],
    ['  /merge  ', { kind: 'submit', noBatch: false }],
    ['LGTM, thanks!\n/merge --no-batch', { kind: 'submit', noBatch: true }],
    ['/merge --priority=high', { kind: 'submit', noBatch: false, priority: 'high' }],
    ['/merge --priority URGENT', { kind: 'submit', noBatch: false, priority: 'urgent' }],
    ['/merge -p 0', { kind: 'submit', noBatch: false, priority: 0 }],
    ['/merge -p 255 --no-batch', { kind: 'submit', noBatch: true, priority: 255 }],
    ['/merge cancel', { kind: 'cancel' }],
    ['/merge restart', { kind: 'restart' }],
    ['/merge Status', { kind: 'status' }],
  ])('%j is a command', (body, command) => {
    expect(parseComment(body)).toEqual({ kind: 'command', command });
  });

  test.each([
    ['no command here'],
    ['> /merge\nquoted from the comment above'],
    ['/merged it myself'],
    ['please /merge'],
    [''],
  ])('%j is not for the queue', (body) => {
    expect(parseComment(body)).toEqual({ kind: 'none' });
  });

  test.each([
    ['/merge now', '`now` is not a /merge command.'],
    ['/merge cancel please', '`/merge cancel` takes no options.'],
    ['/merge --priority=asap', '`asap` is not a priority'],
    ['/merge -p 256', '`256` is not a priority'],
    ['/merge -p', '`-p` needs a value.'],
    ['/merge --fast', '`--fast` is not an option of /merge.'],
  ])('%j gets an error with the usage line', (body, start) => {
    const parsed = parseComment(body);
    expect(parsed.kind).toBe('invalid');
    const message = parsed.kind === 'invalid' ? parsed.message : '';
    expect(message.startsWith(start)).toBe(true);
    expect(message.endsWith(USAGE)).toBe(true);
  });
});
