import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';

/** The longest notification URL taken. */
export const URL_MAX_LENGTH = 500;

/** Where notifications may go: `allowHttp` outside production, `allowPrivate` with NOTIFICATION_ALLOW_PRIVATE=on. */
export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/**
 * Addresses a notification is never sent to: this host, private networks, link-local (and so the
 * cloud metadata service at 169.254.169.254), multicast, and the reserved and unspecified ranges.
 * A partner's URL is otherwise a way to make the service probe its own network (SSRF).
 */
const REFUSED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  REFUSED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // The unspecified and loopback addresses, and IPv4-compatible ones (::a.b.c.d, deprecated).
  ['::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, still routed inside some networks).
  ['fec0::', 10],
  ['ff00::', 8],
  // AWS's metadata service over IPv6.
  ['fd00:ec2::', 32],
  ['100::', 64],
  // Forms that carry an IPv4 address a gateway or relay may reach on the partner's behalf: NAT64
  // (well-known and local-use), Teredo and 6to4. None is a partner's web server's own address.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2002::', 16],
  ['2001:db8::', 32],
] as const) {
  REFUSED.addSubnet(net, prefix, 'ipv6');
}

/** Whether notifications may not be sent to `address` (an IPv4 or IPv6 literal). */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return REFUSED.check(address, 'ipv4');
  if (family !== 6) return true;
  // BlockList checks an IPv4-mapped address (::ffff:127.0.0.1, ::ffff:7f00:1) against the IPv4 rules.
  return REFUSED.check(address, 'ipv6');
}

/** What is wrong with a URL as written (without resolving its host), in words; undefined when nothing. */
export function urlProblem(text: string, policy: UrlPolicy): string | undefined {
  if (text.length > URL_MAX_LENGTH) return `must be at most ${URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return policy.allowHttp ? 'must be an absolute https or http URL' : 'must be an absolute https URL';
  }
  if (!/^https?:\/\//i.test(text) || /\s/.test(text)) return 'must be an absolute URL without spaces';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hostname === '') return 'must name a host';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate && isIP(host) && isRefusedAddress(host)) return 'must not point to a loopback, private, link-local, multicast or metadata address';
  return undefined;
}

/** The host resolved to an address notifications are not sent to. */
export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
  constructor() {
    super('the host resolves to a loopback, private, link-local, multicast or metadata address');
    this.name = 'RefusedAddressError';
  }
}

/**
 * A `lookup` for node's HTTP client that refuses a host any of whose addresses is refused: the
 * check is made on the very addresses the connection uses, at each connection, so a host whose
 * DNS answer changes after it was configured (rebinding) is refused too.
 */
export function guardedLookup(policy: UrlPolicy, lookup: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as (e: Error) => void)(err);
      const list = addresses as unknown as { address: string; family: number }[];
      if (!policy.allowPrivate && (list.length === 0 || list.some((a) => isRefusedAddress(a.address)))) {
        return (callback as (e: Error) => void)(new RefusedAddressError());
      }
      if ((options as { all?: boolean }).all) return (callback as (e: null, a: typeof list) => void)(null, list);
      const first = list[0]!;
      (callback as (e: null, a: string, f: number) => void)(null, first.address, first.family);
    });
  };
}

/** How long a configuration call waits for its URL's host to resolve. */
export const RESOLVE_TIMEOUT_MS = 5_000;

/**
 * Resolves a URL's host and says whether it may be sent to (configuration and notificationTest).
 * A resolver that does not answer in `timeoutMs` is an answer (the partner's call must not hang
 * on it); the lookup itself cannot be cancelled and ends in the background.
 */
export async function resolvedUrlProblem(text: string, policy: UrlPolicy, timeoutMs = RESOLVE_TIMEOUT_MS, lookup: typeof dnsLookup = dnsLookup): Promise<string | undefined> {
  const problem = urlProblem(text, policy);
  if (problem || policy.allowPrivate) return problem;
  const host = new URL(text).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return undefined;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('names a host that could not be resolved in time'), timeoutMs);
    guardedLookup(policy, lookup)(host, { all: true }, (err) => {
      clearTimeout(timer);
      if (!err) resolve(undefined);
      else if (err instanceof RefusedAddressError) resolve('must not point to a loopback, private, link-local, multicast or metadata address');
      else resolve('names a host that could not be resolved');
    });
  });
}
