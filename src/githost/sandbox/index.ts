export { SandboxGitHost, SandboxOutageError, type OpenPullRequestInput, type SandboxComment, type SandboxOptions } from './sandbox-host.js';
export { sandboxRoutes } from './routes.js';
export type { CiOptions, CiRun, StatusEvent } from './ci.js';
export type { DurationSpec } from './random.js';
