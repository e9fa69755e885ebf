import { SETTING_BOUNDS } from '../../domain/settings.js';
import { ServiceError, type FieldProblem } from '../errors.js';
import type { QueueSettingsPatch } from './queue-inputs.js';

/**
 * Rejects numeric settings outside their bounds. The HTTP schemas check the same bounds with better
 * messages; this guard keeps every other door (CLI, GitHub App) from storing a broken queue.
 */
export function assertSettingsInBounds(patch: QueueSettingsPatch): void {
  const problems: FieldProblem[] = [];
  for (const [field, [min, max]] of Object.entries(SETTING_BOUNDS)) {
    const value = patch[field as keyof typeof SETTING_BOUNDS];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push({ path: field, message: `must be an integer from ${min} to ${max}` });
    }
  }
  if (problems.length > 0) {
    throw new ServiceError(400, 'invalid_request', 'Invalid request', problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
  }
}
