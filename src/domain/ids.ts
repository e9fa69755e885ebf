import { v5 as uuidv5 } from 'uuid';

const NAMESPACE = '6f1c7a52-3f0e-4c4e-9a57-1d3d2f1b8e10';

/**
 * A UUID derived from its parts. The planner is pure, so the ids of the runs and units it creates
 * must follow from the snapshot (queue id and a sequence number), not from a random source.
 */
export function derivedId(...parts: (string | number)[]): string {
  return uuidv5(parts.join('\u0000'), NAMESPACE);
}
