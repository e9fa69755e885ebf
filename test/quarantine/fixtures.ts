import type { Org } from '../../src/domain/org.js';
import type { TestCase } from '../../src/domain/quarantine.js';

export const ACME: Org = {
  id: 'org-acme',
  slug: 'acme',
  owners: ['github.com/acme', 'github.com/acme-labs'],
  createdAt: '2026-01-01T00:00:00.000Z',
};

export const GLOBEX: Org = { id: 'org-globex', slug: 'globex', owners: ['github.com/globex'], createdAt: '2026-01-01T00:00:00.000Z' };

export const WIDGETS = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const WIDGETS_KEY = 'github.com/acme/widgets';

/** A quarantined, flaky test case with every optional field set; override what a test is about. */
export function testCase(testCaseId: string, overrides: Partial<TestCase> = {}): TestCase {
  return {
    testCaseId,
    repoKey: WIDGETS_KEY,
    name: `works ${testCaseId}`,
    parent: 'suite',
    file: 'src/suite.test.ts',
    classname: 'suite',
    variant: 'linux',
    codeowners: ['@acme/core'],
    status: 'flaky',
    statusLastUpdatedAt: '2026-11-20T08:00:00.000Z',
    quarantineSetting: 'auto',
    quarantinedAt: '2026-11-20T09:00:00.000Z',
    ...overrides,
  };
}
