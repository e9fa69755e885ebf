import { DEFAULT_FLAKY_SETTINGS, type FlakySettings } from '../../domain/flaky.js';
import { LOST, retryOnConflict, type TestCaseStore } from '../../store/store.js';

/** A repository's flaky-test settings: the defaults for what it never set. */
export async function flakySettingsOf(tests: Pick<TestCaseStore, 'getFlakySettings'>, key: string): Promise<FlakySettings> {
  return { ...DEFAULT_FLAKY_SETTINGS, ...(await tests.getFlakySettings(key)) };
}

/**
 * Sets the fields given (the others stay), with a compare-and-set on the settings read: another
 * replica's change landing between the read and the write is read again and kept.
 */
export function changeFlakySettings(tests: Pick<TestCaseStore, 'getFlakySettings' | 'updateFlakySettings'>, key: string, changes: Partial<FlakySettings>) {
  return retryOnConflict(`flaky settings of ${key}`, async () => {
    const stored = await tests.getFlakySettings(key);
    const before = { ...DEFAULT_FLAKY_SETTINGS, ...stored };
    const next = { ...before, ...definedOnly(changes) };
    return (await tests.updateFlakySettings(key, stored, next)) ? { before, next } : LOST;
  });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
