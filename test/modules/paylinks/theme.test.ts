import { describe, expect, it } from 'vitest';
import { sanitizeTheme } from '../../../src/modules/paylinks/theme.ts';

describe('sanitizeTheme', () => {
  it('keeps visual properties and scopes every selector under #paylink', () => {
    expect(sanitizeTheme('body{background:#fff;color:#222} .pl-button{background-color:rebeccapurple;border-radius:8px} h1,h2{font-family:Georgia,serif}')).toBe(
      '#paylink{background:#fff;color:#222}\n#paylink .pl-button{background-color:rebeccapurple;border-radius:8px}\n#paylink h1,#paylink h2{font-family:Georgia,serif}',
    );
  });

  it('maps html, body and :root onto the page itself', () => {
    expect(sanitizeTheme(':root{--pl-accent:#c00} html body h1{color:var(--pl-accent)} body > main{padding:1rem !important} body.x{color:red}')).toBe(
      '#paylink{--pl-accent:#c00}\n#paylink h1{color:var(--pl-accent)}\n#paylink>main{padding:1rem!important}\n#paylink.x{color:red}',
    );
  });

  it.each([
    ['url() in a value', 'body{background:url(https://evil.example/x.png)}'],
    ['url() without quotes in a shorthand', '.a{background:#fff url(//evil.example/p)}'],
    ['url() in a custom property', ':root{--bg:url(https://evil.example/x)}'],
    ['url() in cursor', '.a{cursor:url(x.cur),auto}'],
    ['an escaped url()', '.a{background:u\\72l(https://evil.example/x)}'],
    ['image-set()', '.a{background-image:image-set("x.png" 1x)}'],
    ['expression()', '.x{width:expression(alert(1))}'],
    ['expression() hidden in a custom property', ':root{--w:expression(alert(1))}'],
    ['attr()', '.a{width:attr(data-x)}'],
    ['env()', '.a{padding:env(safe-area-inset-top)}'],
    ['javascript: in a string', '.a{font-family:"javascript:alert(1)"}'],
    ['behavior and -moz-binding', '.a{behavior:url(x.htc);-moz-binding:url(x.xml#x)}'],
    ['content (could fake text)', '.a::before{content:"Pay to evil"}'],
    ['display, visibility, position (could hide the fees or overlay the form)', '.pl-total{display:none;visibility:hidden;position:fixed;z-index:9;transform:scale(0)}'],
    ['outline removal (focus must stay visible)', ':focus-visible{outline:none}'],
    ['outline-color and outline-offset (a transparent colour or a negative offset hid the focus ring)', ':focus-visible{outline-color:transparent;outline-offset:-3px}'],
    ['attribute selectors (can read input values)', 'input[value^="4"]{background-color:red}'],
    [':has() and :not()', 'form:has(input){color:red} a:not(.x){color:red}'],
    ['vendor properties', '.a{-webkit-text-security:disc}'],
  ])('drops %s', (_what, css) => {
    expect(sanitizeTheme(css)).toBe('');
  });

  it.each([
    ['@import', '@import url(https://evil.example/x.css); h1{color:blue}'],
    ['@import with a string', '@import "https://evil.example/x.css"; h1{color:blue}'],
    ['@font-face', '@font-face{font-family:X;src:url(https://evil.example/x.woff2)} h1{color:blue}'],
    ['@media (at-rules are all dropped)', '@media (max-width:600px){h1{color:red}} h1{color:blue}'],
    ['@namespace and @charset', '@charset "utf-8"; @namespace svg url(http://www.w3.org/2000/svg); h1{color:blue}'],
  ])('drops %s and keeps the rest', (_what, css) => {
    expect(sanitizeTheme(css)).toBe('#paylink h1{color:blue}');
  });

  it.each([
    ['a closing style tag in a string', 'h1{font-family:"</style><script>alert(1)</script>"}'],
    ['a closing style tag in a selector position', '</style><script>alert(1)</script>'],
    ['a closing style tag after a rule', 'h1{color:red}</style><img src=x onerror=alert(1)>'],
    ['a closing style tag in a comment', 'h1{color:red}/*</style><script>alert(1)</script>*/'],
    ['a closing style tag in a custom property', ':root{--x:"</style>"}'],
    ['an escaped less-than', 'h1{font-family:"\\3c/style>"}'],
  ])('never lets %s out of the <style> element', (_what, css) => {
    const out = sanitizeTheme(css);
    expect(out).not.toMatch(/<\/?style/i);
    expect(out).not.toContain('<');
    expect(out).not.toContain('script');
  });

  it('drops a declaration with a bad value but keeps its good neighbours', () => {
    expect(sanitizeTheme('.a{color:green;background:url(x);border:1px solid #000}')).toBe('#paylink .a{color:green;border:1px solid #000}');
  });

  it('keeps gradients and colour functions', () => {
    expect(sanitizeTheme('.a{background-image:linear-gradient(90deg,rgb(0 0 0/50%),hsl(200 50% 50%))}')).toBe(
      '#paylink .a{background-image:linear-gradient(90deg,rgb(0 0 0/50%),hsl(200 50% 50%))}',
    );
  });

  it('gives an empty theme for junk', () => {
    expect(sanitizeTheme('}}}{{{;;;')).toBe('');
    expect(sanitizeTheme('')).toBe('');
  });
});
