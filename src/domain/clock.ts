/** The clock port: real time in the service, virtual time in tests and the simulator. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
