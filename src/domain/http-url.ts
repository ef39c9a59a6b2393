/** An absolute http(s) URL, or a problem in words. */
export function absoluteHttpUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (/[\s<>"]/.test(text)) return 'must not contain spaces, quotes or angle brackets';
  if (!URL_HOST.test(url.hostname)) return 'must name its host with letters, digits, dots and hyphens (or an IP address)';
  return undefined;
}

/**
 * A host a Content-Security-Policy source can name: DNS labels (an IDN in its xn-- form, as URL
 * writes it), an IPv4 or a bracketed IPv6 address. The URL parser also takes hosts like
 * `a;sandbox` or `*`, which the pay page's CSP header would then carry as directives or wildcards.
 */
export const URL_HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?$|^\[[0-9a-f:.]+\]$/;
