export { TargetInterner } from './interner.js';
export { intersects, union } from './target-set.js';
export { DependencyGraph, buildDependencyGraph, type GraphUnit } from './dependency-graph.js';
export { findLanes, type Lanes } from './lanes.js';
