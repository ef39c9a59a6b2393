/**
 * Request text is UTF-8. Decoding invalid bytes the usual way replaces them with U+FFFD, which
 * was stored as sent: "José" sent in Latin-1 became "Jos\uFFFD", and two TranIds differing in
 * one such byte became the same TranId, so the second payment was refused as a duplicate (a
 * robustness audit). These refuse such text instead (undefined), as lone surrogates are.
 */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The bytes as UTF-8 text (a leading byte order mark dropped), or undefined if they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The name/value pairs of an application/x-www-form-urlencoded body, in order, or undefined if a
 * percent-escaped value is not UTF-8. As URLSearchParams reads them otherwise ('+' is a space; a
 * '%' not followed by two hex digits is itself).
 */
export function formEntries(body: string): [string, string][] | undefined {
  const entries: [string, string][] = [];
  for (const part of body.split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    const name = formComponent(at < 0 ? part : part.slice(0, at));
    const value = formComponent(at < 0 ? '' : part.slice(at + 1));
    if (name === undefined || value === undefined) return undefined;
    entries.push([name, value]);
  }
  return entries;
}

function formComponent(raw: string): string | undefined {
  const text = raw.replaceAll('+', ' ');
  if (!text.includes('%')) return text;
  // Escapes are bytes; the text between them (whole, so pairs of surrogates stay together) is UTF-8.
  const parts = text.split(/(%[0-9a-fA-F]{2})/).map((part, i) => (i % 2 ? Buffer.from([parseInt(part.slice(1), 16)]) : Buffer.from(part, 'utf8')));
  return utf8Text(Buffer.concat(parts));
}

/** The name/value pairs of an urlencoded body's bytes, or undefined if the bytes or their escapes are not UTF-8. */
export function utf8FormEntries(bytes: Uint8Array): [string, string][] | undefined {
  const text = utf8Text(bytes);
  return text === undefined ? undefined : formEntries(text);
}
