/** Exit codes of the `mergeq` command. */
export const EXIT = {
  ok: 0,
  /** The command ran and failed: unknown organization, duplicate slug, store unreachable, ... */
  failed: 1,
  /** The command line is wrong: unknown command or option, missing or malformed argument. */
  usage: 2,
  /** The environment is invalid (sysexits EX_CONFIG). */
  config: 78,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
