import { chunkNames, MAX_CHUNK_BYTES, MAX_NAMES_PER_CHUNK } from '../../src/store/mongo/target-chunks.js';

describe('chunking of impacted-target lists for MongoDB documents', () => {
  const bytes = (names: string[]) => names.reduce((n, s) => n + Buffer.byteLength(s, 'utf8'), 0);

  it('keeps every name, in order, and no chunk over the name bound', () => {
    const names = Array.from({ length: 2 * MAX_NAMES_PER_CHUNK + 7 }, (_, i) => `t${i}`);
    const chunks = chunkNames(names);
    expect(chunks.map((c) => c.length)).toEqual([MAX_NAMES_PER_CHUNK, MAX_NAMES_PER_CHUNK, 7]);
    expect(chunks.flat()).toEqual(names);
  });

  it('cuts by UTF-8 size before a document could reach 16 MiB', () => {
    // 20 MiB of 1 KiB names, the largest list a request can carry, in multi-byte characters.
    const name = 'é'.repeat(512);
    const names = Array.from({ length: 20 * 1024 }, () => name);
    const chunks = chunkNames(names);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(bytes(chunk)).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    expect(chunks.flat()).toEqual(names);
  });

  it('makes no chunk for an empty list and one for a single name larger than the byte bound', () => {
    expect(chunkNames([])).toEqual([]);
    const huge = 'x'.repeat(MAX_CHUNK_BYTES + 1);
    expect(chunkNames(['a', huge, 'b'])).toEqual([['a'], [huge], ['b']]);
  });
});
