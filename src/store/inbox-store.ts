/**
 * GitHub webhook deliveries as received: stored (after their signature was checked) before GitHub is
 * answered, then handled from here with retries, so a delivery GitHub was told "received" is never
 * lost — not to a failing attempt, not to a crash.
 */
export interface InboxDelivery {
  /** GitHub's `x-github-delivery`: one row per delivery; a redelivery finds it. */
  id: string;
  /** `x-github-event`. */
  name: string;
  /** The verified payload, as JSON text; emptied once handled (the id is kept to recognize redeliveries). */
  payload: string;
  receivedAt: string;
  /** pending: to handle (again) at `nextAttemptAt`; done: handled or ignored; failed: given up. */
  status: 'pending' | 'done' | 'failed';
  attempts: number;
  /** When it is due; while an attempt runs, when that attempt's claim lapses. */
  nextAttemptAt: string;
  lastError: string | null;
}

export interface InboxStore {
  /**
   * Stores a new delivery; false when its id is already stored (a redelivery), leaving that row as it
   * is — unless it had been given up (`failed`): then it is pending again with `delivery`'s payload.
   */
  acceptInbound(delivery: InboxDelivery): Promise<boolean>;
  /** Pending deliveries due at `now` (ISO), oldest received first. */
  dueInbound(now: string, limit: number): Promise<InboxDelivery[]>;
  /** Takes a due delivery until `until`: true only for the caller whose `expectedNextAttemptAt` still holds. */
  claimInbound(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean>;
  /** Records an attempt's outcome (status, attempts, next attempt, error; an emptied payload once done). */
  putInbound(delivery: InboxDelivery): Promise<void>;
  /** Deletes handled and given-up deliveries received before `before`; returns how many. */
  pruneInbound(before: string): Promise<number>;
}
