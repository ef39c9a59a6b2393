/**
 * HTML text and attribute escaping. Every value that reaches the page (prefill values, partner
 * texts, payer input, messages) goes through `esc`; markup is only ever built from literals.
 */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function esc(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/** ` name="value"` for each set attribute, `name` for true, nothing for false/undefined/null. */
export function attrs(values: Record<string, string | number | boolean | null | undefined>): string {
  let out = '';
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === null || value === false) continue;
    out += value === true ? ` ${name}` : ` ${name}="${esc(value)}"`;
  }
  return out;
}
