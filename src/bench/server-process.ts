import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromServer, MergeqFixture, ReadyMessage, RssReport, ServerKind, ToServer } from './ipc.js';

const SERVER_ENTRY = fileURLToPath(new URL('./bench-server.js', import.meta.url));
const STOP_TIMEOUT_MS = 5000;

/** A server under test running in a child process (bench-server.ts), seen from the benchmark. */
export class ServerProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly fixture: MergeqFixture | null,
  ) {}

  static async start(kind: ServerKind, args: string[] = []): Promise<ServerProcess> {
    const child = fork(SERVER_ENTRY, [kind, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const ready = await new Promise<ReadyMessage>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the ${kind} server exited (code ${code}) before it was ready`));
      child.once('exit', onExit);
      child.on('message', (message: FromServer) => {
        if (message.type !== 'ready') return;
        child.off('exit', onExit);
        resolve(message);
      });
    });
    return new ServerProcess(child, ready.port, ready.fixture);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts tracking the child's peak RSS (resolves once the child has begun); `stopRss` answers it. */
  async startRss(): Promise<void> {
    await this.ask({ type: 'rss-start' }, 'rss-started');
  }

  async stopRss(): Promise<RssReport> {
    return this.ask({ type: 'rss-stop' }, 'rss');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  private send(message: ToServer): void {
    this.child.send(message);
  }

  private ask<T extends FromServer['type']>(message: ToServer, answer: T): Promise<Extract<FromServer, { type: T }>> {
    const answered = new Promise<Extract<FromServer, { type: T }>>((resolve) => {
      const onMessage = (reply: FromServer) => {
        if (reply.type !== answer) return;
        this.child.off('message', onMessage);
        resolve(reply as Extract<FromServer, { type: T }>);
      };
      this.child.on('message', onMessage);
    });
    this.send(message);
    return answered;
  }
}
