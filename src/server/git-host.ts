import type { Router } from 'express';
import type { Logger } from 'pino';
import type { GitHostConfig } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { GitHost } from '../githost/githost.js';
import { NoGitHost } from '../githost/none.js';
import { callerOf } from '../http/auth.js';
import { DEFAULT_BODY_LIMIT } from '../http/body/body-limits.js';
import { jsonBody } from '../http/json-body.js';
import { assertOwnsRepo } from '../service/access/tenancy.js';
import { sandboxRoutes } from '../githost/sandbox/routes.js';
import { SandboxGitHost } from '../githost/sandbox/sandbox-host.js';
import { realScheduler } from '../domain/scheduler.js';
import { buildGitHubApp, type GitHubApp } from './github-app.js';

export interface BuiltGitHost {
  gitHost: GitHost;
  /** Routes to drive the sandbox by hand, mounted at /sandbox; only in sandbox mode. */
  sandboxRouter?: Router;
  /** The sandbox's CI reports statuses in-process, as webhooks would. */
  sandbox?: SandboxGitHost;
  /** The GitHub App (its webhooks are mounted once the engine exists); only with the github host. */
  github?: GitHubApp;
}

export function buildGitHost(config: GitHostConfig, clock: Clock, logger: Logger, bodyTimeoutMs: number): BuiltGitHost {
  switch (config.kind) {
    case 'none':
      return { gitHost: new NoGitHost() };
    case 'sandbox': {
      const sandbox = new SandboxGitHost({ clock, scheduler: realScheduler });
      return {
        gitHost: sandbox,
        sandbox,
        sandboxRouter: sandboxRoutes(sandbox, {
          authorize: (res, repo) => assertOwnsRepo(callerOf(res).org, repo),
          readBody: jsonBody({ limit: DEFAULT_BODY_LIMIT, timeoutMs: bodyTimeoutMs }),
        }),
      };
    }
    case 'github': {
      const github = buildGitHubApp(config, logger);
      return { gitHost: github.gitHost, github };
    }
  }
}
