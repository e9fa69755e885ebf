/**
 * A MongoDB document holds at most 16 MiB, and an impacted-target list may be 20 MiB: lists are
 * stored in chunks. A chunk holds at most MAX_NAMES_PER_CHUNK names and MAX_CHUNK_BYTES of UTF-8,
 * which leaves room for BSON's per-element overhead (about 12 bytes per array element).
 */
export const MAX_NAMES_PER_CHUNK = 50_000;
export const MAX_CHUNK_BYTES = 8 * 1024 * 1024;

/** Splits names into consecutive chunks within both bounds; a chunk holds at least one name. */
export function chunkNames(names: readonly string[]): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const name of names) {
    const size = Buffer.byteLength(name, 'utf8');
    if (current.length > 0 && (current.length === MAX_NAMES_PER_CHUNK || bytes + size > MAX_CHUNK_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(name);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
