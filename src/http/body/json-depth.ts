/** Nesting deeper than this is refused before the body is parsed (JSON.parse recurses per level). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Counts `[` and `{` outside strings over the raw bytes, chunk by chunk, so a deeply nested body is
 * refused while it streams in, before anything is built from it. It does not validate JSON: a
 * malformed body that stays shallow is left to JSON.parse.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly maxDepth: number = MAX_JSON_DEPTH) {}

  /** False as soon as the nesting seen so far passes the maximum. */
  push(chunk: Uint8Array): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
      } else if (byte === QUOTE) {
        this.inString = true;
      } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
        if (++this.depth > this.maxDepth) return false;
      } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
        this.depth--;
      }
    }
    return true;
  }
}
