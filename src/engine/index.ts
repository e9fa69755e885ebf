export { Engine, type EngineOptions, type Fact } from './engine.js';
export { systemClock, type Clock } from './clock.js';
export { realScheduler, type Scheduler, type TimerHandle } from './scheduler.js';
export { VirtualTime } from './virtual-time.js';
export { isTransient, type RetryPolicy } from './retry.js';
