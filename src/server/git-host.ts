import type { Router } from 'express';
import type { GitHostConfig } from '../config/config.js';
import { ConfigError } from '../config/load-config.js';
import type { Clock } from '../engine/clock.js';
import type { GitHost } from '../githost/githost.js';
import { NoGitHost } from '../githost/none.js';
import { sandboxRoutes } from '../githost/sandbox/routes.js';
import { SandboxGitHost } from '../githost/sandbox/sandbox-host.js';
import { realScheduler } from '../engine/scheduler.js';

export interface BuiltGitHost {
  gitHost: GitHost;
  /** Routes to drive the sandbox by hand, mounted at /sandbox; only in sandbox mode. */
  sandboxRouter?: Router;
  /** The sandbox's CI reports statuses in-process, as webhooks would. */
  sandbox?: SandboxGitHost;
}

export function buildGitHost(config: GitHostConfig, clock: Clock): BuiltGitHost {
  switch (config.kind) {
    case 'none':
      return { gitHost: new NoGitHost() };
    case 'sandbox': {
      const sandbox = new SandboxGitHost({ clock, scheduler: realScheduler });
      return { gitHost: sandbox, sandbox, sandboxRouter: sandboxRoutes(sandbox) };
    }
    case 'github':
      throw new ConfigError([
        'MERGEQ_GITHOST is "github", but the GitHub App git host is not implemented yet; ' +
          'run with MERGEQ_GITHOST=none (the API works, pull requests wait as NOT_READY) or MERGEQ_GITHOST=sandbox',
      ]);
  }
}
