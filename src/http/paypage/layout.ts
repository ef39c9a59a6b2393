import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { attrs, esc } from './html.ts';
import type { Messages, PageLanguage } from './i18n.ts';
import { THEME_SCOPE } from '../../modules/paylinks/theme.ts';

/** The page's stylesheet and script, inlined with the response's CSP nonce (no other request). */
const CSS = minify(readFileSync(join(import.meta.dirname, 'assets', 'paypage.css'), 'utf8'));
/** Protective rules sent after a Theme: the fee disclosure and totals stay as they are (assets/protect.css). */
const PROTECT_CSS = minify(readFileSync(join(import.meta.dirname, 'assets', 'protect.css'), 'utf8'));
const SCRIPT = readFileSync(join(import.meta.dirname, 'assets', 'paypage.js'), 'utf8').replace(/^\s*\/\/.*\n/gm, '');

function minify(css: string): string {
  return css.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\n+/g, '').trim();
}

export interface Shell {
  lang: PageLanguage;
  t: Messages;
  nonce: string;
  title: string;
  /** Sanitized, scoped partner CSS. */
  theme?: string | null;
  /** Local font families for the page's text. */
  fonts?: string[];
  /** The branding footer. */
  poweredBy?: { text: string; url: string };
}

/** A whole HTML document around `main` (already escaped markup). */
export function page(shell: Shell, main: string): string {
  const { lang, t, nonce } = shell;
  const fonts = shell.fonts?.length ? `${THEME_SCOPE}{--pl-font:${shell.fonts.map((f) => `"${f}"`).join(',')},system-ui,sans-serif}` : '';
  // The theme was sanitized when the link was made; no '<' may reach the <style> element anyway.
  const theme = (shell.theme ?? '').replace(/</g, '\\3c ') + fonts;
  const footer = shell.poweredBy
    ? `<footer class="pl-footer"><p>${esc(t.poweredBy)} <a${attrs({ href: shell.poweredBy.url, rel: 'noopener noreferrer', target: '_blank' })}>${esc(shell.poweredBy.text)}<span class="pl-sr"> ${esc(t.newWindow)}</span></a></p></footer>`
    : '';
  return (
    `<!doctype html><html lang="${lang}" dir="ltr"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">` +
    `<meta name="robots" content="noindex, nofollow"><title>${esc(shell.title)}</title><link rel="icon" href="data:,">` +
    `<style nonce="${nonce}">${CSS}</style>` +
    // The protective layer follows the theme (it would win from anywhere, being layered and
    // important; after the theme is simply where a reader looks for it).
    (theme ? `<style nonce="${nonce}">${theme}\n${PROTECT_CSS}</style>` : '') +
    `</head><body id="${THEME_SCOPE.slice(1)}"><main class="pl-main">${main}${footer}</main>` +
    `<script nonce="${nonce}">${SCRIPT}</script></body></html>`
  );
}
