import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { URL_HOST } from '../../domain/http-url.ts';

/** A fresh CSP nonce for one response. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The page's response headers. The Content-Security-Policy allows nothing but the response's own
 * nonce'd <style> and <script> elements and a data: favicon: no other script, style, font, image
 * or connection of any origin, no inline handlers, no <base>. Forms may post to the page itself
 * and be redirected to the link's RedirectUrl origin (browsers apply form-action to the redirect
 * after a POST). frame-ancestors is FRAME_ANCESTORS ('none' unless configured).
 */
export function setPageHeaders(reply: FastifyReply, options: { nonce: string; frameAncestors: string; redirectUrl?: string }): void {
  let redirectOrigin = '';
  if (options.redirectUrl) {
    try {
      const url = new URL(options.redirectUrl);
      // Links are checked when made (paylinks-rules.ts); a stored link from before that check
      // with an odd host gets no form-action source rather than a broken header.
      if (URL_HOST.test(url.hostname)) redirectOrigin = ` ${url.origin}`;
    } catch {
      redirectOrigin = '';
    }
  }
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${options.nonce}'`,
    `style-src 'nonce-${options.nonce}'`,
    'img-src data:',
    `form-action 'self'${redirectOrigin}`,
    `frame-ancestors ${options.frameAncestors}`,
    "base-uri 'none'",
  ].join('; ');
  reply.header('Content-Security-Policy', csp);
  if (options.frameAncestors === "'none'") reply.header('X-Frame-Options', 'DENY');
  else if (options.frameAncestors === "'self'") reply.header('X-Frame-Options', 'SAMEORIGIN');
  reply.header('Content-Type', 'text/html; charset=utf-8');
  reply.header('Cache-Control', 'no-store');
  reply.header('X-Content-Type-Options', 'nosniff');
  // The PayLinkId in the address is the link's only key: never send it to another site.
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=(), usb=()');
  reply.header('Cross-Origin-Resource-Policy', 'same-origin');
}
