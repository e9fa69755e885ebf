/** Where a CLI run reads its environment and writes its output; tests pass buffers. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  /** Base of a relative MERGEQ_DATA_DIR; the process's working directory when absent. */
  cwd?: string;
  /** The byte streams of a command that speaks a protocol over stdio (`mergeq mcp`); the process's when absent. */
  streams?: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream };
  /** Variables of `env` read from a `.env` file, with its path (`--verbose` says where each setting came from). */
  dotEnv?: { path: string; names: ReadonlySet<string> };
}
