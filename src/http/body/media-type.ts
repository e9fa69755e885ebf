/** `application/json` or `application/<something>+json`, with any parameters. */
export function isJsonMediaType(header: string | undefined): boolean {
  if (!header) return false;
  const mediaType = header.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(mediaType);
}

/** The `charset` parameter of a Content-Type header, lower case and unquoted; null when absent. */
export function charsetOf(header: string): string | null {
  for (const param of header.split(';').slice(1)) {
    const [name, ...value] = param.split('=');
    if (name!.trim().toLowerCase() === 'charset') return value.join('=').trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return null;
}

/** JSON is UTF-8 (RFC 8259): another declared charset is refused rather than transcoded. */
export function isUtf8Charset(header: string): boolean {
  const charset = charsetOf(header);
  return charset === null || charset === 'utf-8' || charset === 'utf8';
}
