import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * Reading untrusted XML safely. Before anything is parsed, a document with a DOCTYPE or an entity
 * declaration is refused (so nothing is ever expanded or fetched: no XXE, no billion laughs);
 * then it must be well-formed and nest no deeper than MAX_DEPTH. Entities are not processed by
 * the parser: the five predefined ones and character references are decoded here, and any other
 * reference is malformed. The body limit (64 KiB) is the HTTP layer's.
 */
export const MAX_DEPTH = 16;

export type XmlProblem = 'doctype' | 'malformed' | 'nesting';

export class XmlRequestError extends Error {
  readonly problem: XmlProblem;
  constructor(problem: XmlProblem, message: string) {
    super(message);
    this.name = 'XmlRequestError';
    this.problem = problem;
  }
}

export type XmlElement = Record<string, unknown>;

const CDATA = '__cdata';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  cdataPropName: CDATA,
  maxNestedTags: MAX_DEPTH,
  ignorePiTags: true,
  // No callback needs a path: skip building one for every tag.
  jPath: false,
});

const DECLARATION = /<!\s*(DOCTYPE|ENTITY)/i;

export function parseXml(text: string): XmlElement {
  if (DECLARATION.test(text)) {
    throw new XmlRequestError('doctype', 'DTDs and entity declarations are not allowed.');
  }
  if (text.trim() === '') throw new XmlRequestError('malformed', 'The request body is empty.');
  // Only the XML itself; the validator's message quotes positions, never content.
  const verdict = XMLValidator.validate(text);
  if (verdict !== true) throw new XmlRequestError('malformed', `The request is not well-formed XML (line ${verdict.err.line}).`);
  try {
    return parser.parse(text) as XmlElement;
  } catch (err) {
    if (/nested/i.test((err as Error).message)) {
      throw new XmlRequestError('nesting', `The request nests elements deeper than ${MAX_DEPTH} levels.`);
    }
    throw new XmlRequestError('malformed', 'The request is not well-formed XML.');
  }
}

const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][\w.-]*);|&/g;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };

/** Decodes the five predefined entities and character references, in one pass (no double decoding). */
export function decodeXmlText(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(REFERENCE, (match, ref: string | undefined) => {
    if (ref === undefined) throw new XmlRequestError('malformed', 'The request has a bare "&".');
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!validCodePoint(code)) throw new XmlRequestError('malformed', 'The request has an invalid character reference.');
      return String.fromCodePoint(code);
    }
    const value = PREDEFINED[ref];
    if (value === undefined) throw new XmlRequestError('malformed', 'The request refers to an undeclared entity.');
    return value;
  });
}

function validCodePoint(c: number): boolean {
  return c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/** The text of a parsed element: its character data decoded, plus any CDATA as written. */
export function elementText(value: unknown): string | undefined {
  if (typeof value === 'string') return decodeXmlText(value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const node = value as XmlElement;
    if (Object.keys(node).some((k) => !k.startsWith('@_') && k !== '#text' && k !== CDATA)) return undefined;
    const text = typeof node['#text'] === 'string' ? decodeXmlText(node['#text']) : '';
    const cdata = node[CDATA];
    return text + (Array.isArray(cdata) ? cdata.join('') : typeof cdata === 'string' ? cdata : '');
  }
  return undefined;
}

/** Child elements of a parsed element: [qualified name, value] without attributes and text. */
export function childElements(node: XmlElement): [string, unknown][] {
  return Object.entries(node).filter(([k]) => !k.startsWith('@_') && k !== '#text' && k !== CDATA && k !== '?xml');
}

const ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for element content and attribute values; drops characters XML 1.0 cannot carry. */
export function escapeXml(value: string): string {
  return value
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/[<>&"']/g, (c) => ESCAPES[c]!);
}
