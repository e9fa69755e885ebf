import type { DataDirError } from '../store/open.js';

const ELSEWHERE = 'set MERGEQ_DATA_DIR to a folder the service may write (./data by default), or use MongoDB (MONGODB_URI)';
const NOT_WRITABLE = `the user running mergeq may not write there: give it the folder (chown or chmod), or ${ELSEWHERE}`;
const FILE_IN_THE_WAY = `a file is in the way: move it, or ${ELSEWHERE}`;

/** What to do, by the system's error code. */
const ADVICE: Record<string, string> = {
  EACCES: NOT_WRITABLE,
  EPERM: NOT_WRITABLE,
  EROFS: `the file system is read-only (in a container, mount a volume there), or ${ELSEWHERE}`,
  ENOTDIR: FILE_IN_THE_WAY,
  EEXIST: FILE_IN_THE_WAY,
  ENOENT: `no folder can be created there (/proc and /sys hold no real folders): ${ELSEWHERE}`,
};

/** The one line `mergeq` prints when its SQLite data folder cannot be used: the variable, the folder, what to do. */
export function dataDirAdvice(err: DataDirError): string {
  return `cannot use the data folder MERGEQ_DATA_DIR=${err.dataDir} (${err.reason}); ${(err.code && ADVICE[err.code]) ?? ELSEWHERE}`;
}
