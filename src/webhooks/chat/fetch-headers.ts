/** A Slack SDK request's headers as node:http takes them (lower-case names, string values). */
export function fetchHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers && typeof headers === 'object') for (const [k, v] of Object.entries(headers as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  return out;
}
