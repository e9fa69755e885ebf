import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { usageError as usage } from '../usage-error.js';
import { detectCi } from '../test-wrapper/ci-environment.js';
import { decideExit, type ResultsState } from '../test-wrapper/exit-decision.js';
import { findJunitFiles } from '../test-wrapper/junit-files.js';
import { DEFAULT_BACKOFF_MS, uploadResults, type UploadRequest } from '../test-wrapper/upload-client.js';
import { noReportWarning, uploadReport } from '../test-wrapper/upload-report.js';
import { parseRepo } from './queue-ref.js';
import { registerTestQuarantine } from './test-quarantine.js';

interface TestOptions {
  junit?: string;
  variant?: string;
  repo?: string;
  commit?: string;
  branch?: string;
  job?: string;
}

const TEST_HELP = `
Exit code: 0 when the command failed and every failed test is quarantined (since before this run's
results arrived: a run never forgives its own new failure); otherwise the command's own code. A failing
command without a fresh JUnit report, or a service that cannot be reached (after 5 attempts), keeps
the command's code; a refused token (401/403) exits 70. A passing command always passes.

Environment: MERGEQ_URL, MERGEQ_TOKEN; repository, commit and branch from GitHub Actions, Buildkite,
CircleCI or GitLab CI variables (or the flags).

Examples:
  $ mergeq test --junit 'reports/**/*.xml' -- npm test
  $ mergeq test upload --junit 'build/test-results/**/*.xml'
  $ mergeq test quarantine <test-case-id> --repo acme/shop --reason "times out on CI"
  $ mergeq test release <test-case-id> --repo acme/shop
`;

function addUploadOptions(cmd: Command): Command {
  // Checked in the actions, not by commander: a required option of `test` would be demanded of `test upload` too.
  return cmd
    .option('--junit <glob>', "JUnit XML files to read, e.g. 'reports/**/*.xml' (quote it; required)")
    .option('--variant <name>', 'test variant (e.g. linux): a separate test case per variant')
    .option('--repo <repo>', 'the repository: owner/name on github.com, or host/owner/name (default: from the CI environment)')
    .option('--commit <sha>', 'the commit tested (default: from the CI environment)')
    .option('--branch <name>', 'the branch tested (default: from the CI environment)')
    .option('--job <name>', 'the CI job name (default: from the CI environment)');
}

export function registerTest(program: Command, ctx: CliContext): void {
  const test = addUploadOptions(
    program
      .command('test')
      .description('Run a test command, upload its JUnit results, and forgive failures of quarantined tests: `test [options] -- <command...>`, `test upload`, `test quarantine`, `test release`.')
      .argument('[command...]', 'the test command, after --'),
  )
    .addHelpText('after', TEST_HELP)
    .action(async (command: string[], options: TestOptions) => {
      if (command.length === 0) throw usage('give the test command after --, e.g. mergeq test --junit "reports/*.xml" -- npm test');
      requireJunit(options);
      const target = uploadTarget(ctx, options);
      const startedAt = Date.now();
      const commandCode = await runCommand(command, ctx.io.cwd ?? process.cwd(), ctx.io.env);
      const results = await collectAndUpload(ctx, options, target, startedAt);
      const decision = decideExit(commandCode, results);
      if (decision.message) ctx.io.stderr.write(`mergeq test: ${decision.message}\n`);
      ctx.exitWith(decision.code);
    });

  addUploadOptions(test.command('upload').description('Upload JUnit results without running anything (for CIs that run the tests themselves).')).action(
    async (_options: TestOptions, cmd: Command) => {
      // Commander hands options named by both `test` and `test upload` to `test`: read them merged.
      const options = cmd.optsWithGlobals<TestOptions>();
      requireJunit(options);
      const target = uploadTarget(ctx, options);
      const results = await collectAndUpload(ctx, options, target, 0);
      if (results.kind === 'unreadable') ctx.io.stderr.write(`mergeq test upload: ${results.detail}\n`);
      else if (results.kind === 'uploaded' && results.outcome.kind !== 'ok') ctx.io.stderr.write(`mergeq test upload: ${results.outcome.detail}\n`);
      const failed = results.kind !== 'uploaded' || results.outcome.kind !== 'ok';
      ctx.exitWith(failed ? (results.kind === 'uploaded' && results.outcome.kind === 'denied' ? 70 : 1) : 0);
    },
  );
  registerTestQuarantine(test, ctx);
}

interface UploadTarget {
  url: string;
  token: string;
  request: Omit<UploadRequest, 'junitXml' | 'uploadId' | 'pathRoot'>;
}

/** Everything needed to upload, checked before the command runs (a usage error is the one early failure). */
function uploadTarget(ctx: CliContext, options: TestOptions): UploadTarget {
  const env = ctx.io.env;
  const ci = detectCi(env);
  const repo = options.repo !== undefined ? parseRepo(options.repo) : ci.repo;
  const url = env.MERGEQ_URL;
  const token = env.MERGEQ_TOKEN;
  const commitSha = options.commit ?? ci.commitSha;
  const missing = [!url && 'MERGEQ_URL', !token && 'MERGEQ_TOKEN', !repo && '--repo (or a CI environment)', !commitSha && '--commit (or a CI environment)'].filter(Boolean);
  if (missing.length > 0) throw usage(`missing ${missing.join(', ')}`);
  return {
    url: url!,
    token: token!,
    request: {
      repo: repo!,
      commitSha: commitSha!,
      branch: options.branch ?? ci.branch,
      prNumber: ci.prNumber,
      jobName: options.job ?? ci.jobName,
      variant: options.variant ?? null,
    },
  };
}

async function collectAndUpload(ctx: CliContext, options: TestOptions, target: UploadTarget, sinceMs: number): Promise<ResultsState> {
  const cwd = ctx.io.cwd ?? process.cwd();
  const files = findJunitFiles(options.junit!, cwd, sinceMs);
  if (files.length === 0) {
    ctx.io.stderr.write(noReportWarning(options.junit!, sinceMs > 0 ? findJunitFiles(options.junit!, cwd, 0).length : 0));
    return { kind: 'none' };
  }
  let junitXml: string[];
  try {
    junitXml = files.map((f) => readFileSync(f, 'utf8'));
  } catch (err) {
    return { kind: 'unreadable', detail: err instanceof Error ? err.message : String(err) };
  }
  const backoff = Number(ctx.io.env.MERGEQ_UPLOAD_BACKOFF_MS ?? DEFAULT_BACKOFF_MS);
  const outcome = await uploadResults(
    { ...target.request, uploadId: randomUUID(), junitXml, pathRoot: cwd },
    { url: target.url, token: target.token, backoffMs: Number.isFinite(backoff) ? backoff : DEFAULT_BACKOFF_MS },
  );
  if (outcome.kind === 'ok') ctx.io.stderr.write(uploadReport(files.length, outcome.answer));
  return { kind: 'uploaded', outcome };
}

/** Runs the command with inherited stdio; its exit code (128 + signal number when killed, 127 when it cannot start). */
function runCommand(command: string[], cwd: string, env: Record<string, string | undefined>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { cwd, env: env as NodeJS.ProcessEnv, stdio: 'inherit' });
    child.on('error', () => resolve(127));
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? signalNumber(signal) : 0)));
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 1;
}

function requireJunit(options: TestOptions): void {
  if (!options.junit) throw usage("--junit <glob> is required, e.g. --junit 'reports/**/*.xml'");
}
