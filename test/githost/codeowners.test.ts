import nock from 'nock';
import { FAILURE_TTL_MS, GitHubCodeOwners } from '../../src/githost/github/codeowners.js';
import type { Octokit } from '../../src/githost/github/github-client.js';
import { ownersOf, parseCodeOwners } from '../../src/domain/codeowners-rules.js';
import { TestOctokit } from './github-test-client.js';

const API = 'https://api.github.com';
const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const contents = (path: string) => new RegExp(`^/repos/acme/widgets/contents/${path.replace('/', '(?:/|%2F)').replace('.', '\\.')}$`);
const file = (text: string) => ({ type: 'file', encoding: 'base64', content: Buffer.from(text).toString('base64') });

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

describe('CODEOWNERS rules', () => {
  const rules = parseCodeOwners(`
# default owners
*                 @acme/everyone
*.js              @acme/js   # trailing comment
/src/cart/        @acme/cart
docs/*            @acme/docs
apps/             @acme/apps
/src/**/pay*.ts   @alice bob@acme.example
`);
  test.each([
    ['README.md', ['@acme/everyone']],
    ['src/app.js', ['@acme/js']],
    ['src/cart/deep/cart.test.ts', ['@acme/cart']],
    ['docs/intro.md', ['@acme/docs']],
    ['docs/guides/intro.md', ['@acme/everyone']],
    ['web/apps/main.ts', ['@acme/apps']],
    ['src/billing/payment.ts', ['@alice', 'bob@acme.example']],
    ['./src/cart/x.js', ['@acme/cart']],
  ])('%s is owned by %j (the last matching rule wins)', (path, owners) => {
    expect(ownersOf(rules, path)).toEqual(owners);
  });

  test('no rule matches: []', () => {
    expect(ownersOf(parseCodeOwners('/src/ @acme/src'), 'test/a.ts')).toEqual([]);
  });
});

describe('GitHubCodeOwners', () => {
  const octokit: Octokit = new TestOctokit({ auth: 'token test' });
  const source = () => new GitHubCodeOwners(async () => octokit);

  test('reads .github/CODEOWNERS first, and caches it', async () => {
    const scope = nock(API).get(contents('.github/CODEOWNERS')).once().reply(200, file('src/ @acme/core\n'));
    const owners = source();
    expect(await owners.ownersOf(repo, 'src/cart.test.ts')).toEqual(['@acme/core']);
    expect(await owners.ownersOf(repo, 'src/other.test.ts')).toEqual(['@acme/core']);
    expect(scope.isDone()).toBe(true);
  });

  test('falls back to CODEOWNERS, then docs/CODEOWNERS', async () => {
    nock(API)
      .get(contents('.github/CODEOWNERS'))
      .reply(404, { message: 'Not Found' })
      .get(contents('CODEOWNERS'))
      .reply(404, { message: 'Not Found' })
      .get(contents('docs/CODEOWNERS'))
      .reply(200, file('* @acme/docs-owned\n'));
    expect(await source().ownersOf(repo, 'a.ts')).toEqual(['@acme/docs-owned']);
  });

  test('no CODEOWNERS anywhere, or GitHub failing, or no file: []', async () => {
    nock(API).get(/contents/).times(3).reply(404, { message: 'Not Found' });
    expect(await source().ownersOf(repo, 'a.ts')).toEqual([]);
    nock(API).get(/contents/).reply(500, { message: 'boom' });
    expect(await source().ownersOf(repo, 'a.ts')).toEqual([]);
    expect(await source().ownersOf(repo, null)).toEqual([]);
  });
});

test('GitHub failing is asked once per 30 s, not once per test entering quarantine', async () => {
  let now = 0;
  const owners = new GitHubCodeOwners(async () => new TestOctokit({ auth: 'token test', request: { retries: 0 } }), { now: () => now });
  nock(API).get(contents('.github/CODEOWNERS')).reply(500, { message: 'boom' });
  const later = nock(API).get(contents('.github/CODEOWNERS')).reply(200, file('src/ @acme/core\n'));
  expect(await owners.ownersOf(repo, 'src/a.test.ts')).toEqual([]);
  expect(await owners.ownersOf(repo, 'src/b.test.ts')).toEqual([]);
  expect(later.isDone()).toBe(false);
  now += FAILURE_TTL_MS;
  expect(await owners.ownersOf(repo, 'src/b.test.ts')).toEqual(['@acme/core']);
});

describe('owners in the quarantined-test listing', () => {
  test('a test entering quarantine gets the owners of its file', async () => {
    const { openSqliteStore } = await import('../../src/store/open.js');
    const { FlakyTestService } = await import('../../src/service/flaky/flaky-test-service.js');
    const { QuarantineService } = await import('../../src/service/flaky/quarantine-service.js');
    const store = await openSqliteStore(':memory:');
    const org = { id: 'o', slug: 'acme', owners: ['github.com/acme'], createdAt: '2026-11-22T10:00:00.000Z' };
    const octokit: Octokit = new TestOctokit({ auth: 'token test' });
    const service = new FlakyTestService({ store, clock: { now: () => new Date('2026-11-22T10:00:00.000Z') }, codeOwners: new GitHubCodeOwners(async () => octokit) });
    nock(API).get(contents('.github/CODEOWNERS')).reply(200, file('/src/cart/ @acme/cart\n'));
    const xml = (failed: boolean) =>
      `<testsuite name="cart"><testcase name="adds" file="/ci/shop/src/cart/cart.test.ts">${failed ? '<failure/>' : ''}</testcase></testsuite>`;
    await service.upload(org, { repo, commitSha: 'c1', junitXml: [xml(true)], pathRoot: '/ci/shop' });
    await service.upload(org, { repo, commitSha: 'c1', junitXml: [xml(false)], pathRoot: '/ci/shop' });
    const listed = await new QuarantineService(store).list(org, { repo, orgUrlSlug: 'acme', pageSize: 25, pageToken: '' });
    expect(listed.quarantined_tests).toEqual([expect.objectContaining({ file: 'src/cart/cart.test.ts', codeowners: ['@acme/cart'] })]);
    await store.close();
  });
});
