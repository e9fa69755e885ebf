import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;

/** Servers still running: killed, and their data removed, when the benchmark itself is interrupted. */
const running = new Set<{ child: ChildProcess; dataDir: string }>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const { child, dataDir } of running) {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
    process.exit(130);
  });
}

/** What the server process has used so far, from /proc/<pid>/stat and /proc/<pid>/io. */
export interface ProcessUsage {
  cpuSeconds: number;
  /** Bytes the process passed to write(2) and friends (`wchar`): what SQLite wrote, WAL and checkpoints. */
  wcharBytes: number;
  /** Bytes the process caused to be sent to the storage layer (`write_bytes`: dirtied page cache). */
  writeBytes: number;
}

/**
 * `mergeq serve` as a user runs it — a child process, SQLite under a fresh data directory, the sandbox
 * git host — with one organization owning `github.com/bench` and a token for it, both made with the
 * `mergeq` admin commands before the server starts.
 */
export class DepthServer {
  private readonly handle: { child: ChildProcess; dataDir: string };
  private stopping = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly dataDir: string,
    readonly url: string,
    readonly token: string,
  ) {
    this.handle = { child, dataDir };
  }

  static async start(): Promise<DepthServer> {
    const dataDir = mkdtempSync(join(tmpdir(), 'mergeq-bench-depth-'));
    const port = await freePort();
    const env = {
      ...process.env,
      MERGEQ_DATA_DIR: dataDir,
      MERGEQ_PORT: String(port),
      MERGEQ_HOST: '127.0.0.1',
      MERGEQ_GITHOST: 'sandbox',
      MERGEQ_RATE_LIMIT: '0',
      LOG_LEVEL: 'warn' as const,
    };
    const admin = (args: string[]) => execFileSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    admin(['org', 'create', 'bench', '--owner', 'github.com/bench']);
    const token = admin(['token', 'create', '--org', 'bench']).trim();
    // Logs at warn and above only: they show up in the benchmark's output.
    const child = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('exit', (code, signal) => {
      if (!server.stopping) console.error(`mergeq serve exited unexpectedly (code ${code}, signal ${signal})`);
    });
    const server = new DepthServer(child, dataDir, `http://127.0.0.1:${port}`, token);
    running.add(server.handle);
    await server.waitReady();
    return server;
  }

  usage(): ProcessUsage {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error('the server has no pid');
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const io = Object.fromEntries(
      readFileSync(`/proc/${pid}/io`, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(': ') as [string, string]),
    );
    return { cpuSeconds: ticks / TICKS_PER_SECOND, wcharBytes: Number(io.wchar), writeBytes: Number(io.write_bytes) };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dataDir, { recursive: true, force: true });
    running.delete(this.handle);
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`mergeq serve exited (code ${this.child.exitCode}) before it was ready`);
      try {
        if ((await fetch(`${this.url}/readyz`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await this.stop();
    throw new Error(`mergeq serve was not ready within ${READY_TIMEOUT_MS / 1000} s`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
