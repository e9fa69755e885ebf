/** A `doc` column read back: the JSON text of a domain object, or undefined when no row matched. */
export function parseDoc<T>(doc: unknown): T | null {
  return typeof doc === 'string' ? (JSON.parse(doc) as T) : null;
}

export function parseDocs<T>(docs: unknown[]): T[] {
  return docs.map((d) => JSON.parse(d as string) as T);
}
