import * as csstree from 'css-tree';

/**
 * The pay link's Theme: partner CSS parsed with css-tree and rebuilt from an allow-list, so it
 * can restyle the page but never fetch or run anything. The fee disclosure and totals are further
 * kept out of its reach by the protective layer the page sends after it (assets/protect.css).
 *
 * - Only style rules survive; every at-rule (@import, @font-face, @media, @keyframes ...) is dropped.
 * - Selectors may use element, class and id selectors, combinators and a few harmless
 *   pseudo-classes and pseudo-elements; attribute selectors (which can read input values) and
 *   anything else drop the selector. Every selector is scoped under `#paylink` (the page's body);
 *   `html`, `body` and `:root` become `#paylink` itself.
 * - Declarations keep only visual properties (colors, borders, fonts, spacing, sizes); layout
 *   properties that could hide the fee disclosure or fake the form (display, position, content,
 *   visibility, transform, z-index ...) are dropped, and so is every `outline` property (focus must
 *   stay visible, and a transparent outline-color would hide it; the protective layer draws the
 *   focus ring).
 * - Values may not contain url(), strings with `<`, backslash escapes, or any function outside
 *   color, math and gradient functions (no expression(), image-set(), attr(), env() ...).
 * Whatever is dropped is dropped silently: a theme is decoration, never a reason to refuse a link.
 */

const ALLOWED_PROPERTIES = new Set([
  'color', 'background', 'background-color', 'background-image', 'background-position', 'background-size', 'background-repeat',
  'border', 'border-color', 'border-width', 'border-style', 'border-radius',
  'border-top', 'border-right', 'border-bottom', 'border-left',
  'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width',
  'border-top-style', 'border-right-style', 'border-bottom-style', 'border-left-style',
  'border-top-left-radius', 'border-top-right-radius', 'border-bottom-left-radius', 'border-bottom-right-radius',
  'box-shadow', 'text-shadow', 'opacity', 'accent-color', 'caret-color',
  'font', 'font-family', 'font-size', 'font-weight', 'font-style', 'font-variant', 'line-height', 'letter-spacing', 'word-spacing',
  'text-align', 'text-transform', 'text-decoration', 'text-decoration-color', 'text-decoration-line', 'text-decoration-style',
  'text-decoration-thickness', 'text-underline-offset',
  'margin', 'margin-top', 'margin-right', 'margin-bottom', 'margin-left',
  'padding', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'width', 'min-width', 'max-width', 'height', 'min-height', 'max-height', 'gap', 'row-gap', 'column-gap',
  'cursor', 'transition', 'transition-duration', 'transition-property',
]);

const ALLOWED_FUNCTIONS = new Set([
  'rgb', 'rgba', 'hsl', 'hsla', 'hwb', 'lab', 'lch', 'oklab', 'oklch', 'color-mix',
  'calc', 'min', 'max', 'clamp', 'var',
  'linear-gradient', 'radial-gradient', 'conic-gradient', 'repeating-linear-gradient', 'repeating-radial-gradient',
]);

const ALLOWED_PSEUDO_CLASSES = new Set([
  'hover', 'focus', 'focus-visible', 'focus-within', 'active', 'disabled', 'checked', 'invalid',
  'first-child', 'last-child', 'first-of-type', 'last-of-type', 'placeholder-shown',
]);
const ALLOWED_PSEUDO_ELEMENTS = new Set(['placeholder', 'selection', 'marker']);
const ROOT_TYPES = new Set(['html', 'body']);
/** The selector of the page's body (`<body id="paylink">`): every theme rule is scoped under it. */
export const THEME_SCOPE = '#paylink';

type CssNode = csstree.CssNode;

/** Returns the safe, scoped CSS of a theme ('' when nothing survives). */
export function sanitizeTheme(theme: string): string {
  let ast: CssNode;
  try {
    ast = csstree.parse(theme, { parseCustomProperty: true, parseRulePrelude: true, parseValue: true, onParseError: () => {} });
  } catch {
    return '';
  }
  const out: string[] = [];
  if (ast.type !== 'StyleSheet') return '';
  ast.children.forEach((node) => {
    if (node.type !== 'Rule') return; // at-rules, raw junk
    const selectors = scopedSelectors(node.prelude);
    if (selectors.length === 0) return;
    const declarations = safeDeclarations(node.block);
    if (declarations.length === 0) return;
    out.push(`${selectors.join(',')}{${declarations.join(';')}}`);
  });
  // Belt and braces: no '<' can reach the <style> element, so nothing can close it.
  return out.join('\n').replace(/</g, '\\3c ');
}

function scopedSelectors(prelude: CssNode): string[] {
  if (prelude.type !== 'SelectorList') return [];
  const result: string[] = [];
  prelude.children.forEach((selector) => {
    if (selector.type !== 'Selector') return;
    const scoped = scopeSelector(selector);
    if (scoped) result.push(scoped);
  });
  return result;
}

/** The selector under #paylink, or undefined when it uses anything outside the allow-list. */
function scopeSelector(selector: csstree.Selector): string | undefined {
  const parts = selector.children.toArray();
  let rooted = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    switch (part.type) {
      case 'TypeSelector': {
        const name = part.name.toLowerCase();
        if (ROOT_TYPES.has(name)) {
          // Only as the selector's first compound: `body .x`, `html body`, not `.x body`.
          const before = parts.slice(0, i);
          const onlyRoots = before.every((p) => (p.type === 'TypeSelector' && ROOT_TYPES.has(p.name.toLowerCase())) || (p.type === 'Combinator' && p.name === ' '));
          if (!onlyRoots) return undefined;
          rooted = true;
        } else if (!/^(?:\*|[a-z][a-z0-9]*)$/.test(name)) return undefined;
        break;
      }
      case 'ClassSelector':
      case 'IdSelector':
        if (!/^-?[A-Za-z_][\w-]*$/.test(part.name)) return undefined;
        break;
      case 'PseudoClassSelector': {
        const name = part.name.toLowerCase();
        if (name === 'root' && i === 0) {
          rooted = true;
          break;
        }
        if (!ALLOWED_PSEUDO_CLASSES.has(name) || part.children) return undefined;
        break;
      }
      case 'PseudoElementSelector':
        if (!ALLOWED_PSEUDO_ELEMENTS.has(part.name.toLowerCase()) || part.children) return undefined;
        break;
      case 'Combinator':
        if (![' ', '>', '+', '~'].includes(part.name)) return undefined;
        break;
      default:
        return undefined; // attribute selectors, nesting, :has(), :not(), raw ...
    }
  }
  const text = csstree.generate(selector);
  if (/[\\<]/.test(text)) return undefined;
  if (!rooted) return `${THEME_SCOPE} ${text}`;
  // Replace the leading html/body/:root compound(s) with the scope itself.
  const rest = text.replace(/^(?:(?:html|body|:root)(?=[\s>+~.#:]|$)\s*)+/i, '');
  return rest === '' ? THEME_SCOPE : /^[>+~]/.test(rest) ? `${THEME_SCOPE}${rest}` : /^[.#:]/.test(rest) ? `${THEME_SCOPE}${rest}` : `${THEME_SCOPE} ${rest}`;
}

function safeDeclarations(block: csstree.Block): string[] {
  const out: string[] = [];
  block.children.forEach((node) => {
    if (node.type !== 'Declaration') return; // nested rules and at-rules
    const property = node.property.toLowerCase();
    const custom = property.startsWith('--');
    if (custom ? !/^--[A-Za-z][\w-]*$/.test(property) : !ALLOWED_PROPERTIES.has(property)) return;
    if (!safeValue(node.value)) return;
    const value = csstree.generate(node.value).trim();
    if (value === '' || /[\\<]/.test(value) || /expression|javascript:|@import/i.test(value)) return;
    out.push(`${custom ? node.property : property}:${value}${node.important ? '!important' : ''}`);
  });
  return out;
}

function safeValue(value: CssNode): boolean {
  let safe = true;
  csstree.walk(value, (node) => {
    if (!safe) return;
    switch (node.type) {
      case 'Url':
      case 'Raw':
        safe = false;
        break;
      case 'Function':
        if (!ALLOWED_FUNCTIONS.has(node.name.toLowerCase())) safe = false;
        break;
      case 'String':
        if (/[<>\\]/.test(node.value) || /url\s*\(|javascript:|expression/i.test(node.value)) safe = false;
        break;
      case 'Identifier':
        if (/^(?:expression|javascript)/i.test(node.name) || node.name.includes('\\')) safe = false;
        break;
    }
  });
  return safe;
}
