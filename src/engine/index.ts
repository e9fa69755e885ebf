export { Engine, type EngineOptions, type Fact } from './engine.js';
export { VirtualTime } from './virtual-time.js';
export { isTransient, type RetryPolicy } from './retry.js';
