/** Priority names and their values; 0 is the most urgent. */
export const PRIORITY_NAMES = { urgent: 0, high: 10, medium: 100, low: 200 } as const;
export type PriorityName = keyof typeof PRIORITY_NAMES;
export const DEFAULT_PRIORITY_NAME: PriorityName = 'medium';
export const MIN_PRIORITY = 0;
export const MAX_PRIORITY = 255;
/** Only `urgent` jumps ahead of units that are already testing. */
export const SKIP_THE_LINE_PRIORITY = PRIORITY_NAMES.urgent;

export interface ResolvedPriority {
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string | null;
}

/** `priority` as validated input: a name, a number 0–255, or absent. */
export function resolvePriority(priority: PriorityName | number | undefined): ResolvedPriority {
  if (priority === undefined) {
    return {
      priorityValue: PRIORITY_NAMES[DEFAULT_PRIORITY_NAME],
      priorityName: DEFAULT_PRIORITY_NAME,
      usedDefaultPriorityName: DEFAULT_PRIORITY_NAME,
    };
  }
  if (typeof priority === 'string') {
    return { priorityValue: PRIORITY_NAMES[priority], priorityName: priority, usedDefaultPriorityName: null };
  }
  const named = (Object.entries(PRIORITY_NAMES) as [PriorityName, number][]).find(([, v]) => v === priority);
  return { priorityValue: priority, priorityName: named ? named[0] : String(priority), usedDefaultPriorityName: null };
}
