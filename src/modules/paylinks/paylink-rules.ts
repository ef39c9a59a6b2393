import { countryProblem, emailProblem, ipProblem, phoneProblem, stateProblem, zipProblem } from '../../domain/address.ts';
import { Rule, type RuleName, type RuleViolation } from '../../domain/rules.ts';
import { TRANSACTION_SOURCE_GROUPS } from '../../domain/fee-schedule.ts';
import { HOLDER_LIMITS } from '../../domain/holder.ts';
import type { Cents } from '../../domain/money.ts';
import { GUID } from '../../platform/ids.ts';
import { absoluteHttpUrlProblem } from '../../domain/http-url.ts';

/**
 * The rules of the spec's pay link table that need no database: formats, the workflow and line
 * rules. References (processor, source, tokens) and fees are checked by the service. Violations
 * name the fields of PayLinkCreateInput (`paymentLines[0].recurring`); each edge says them in its
 * own words.
 */

/** The longest text of each field of a link; the payer's fields are the holder's (domain/holder.ts). */
export const PAY_LINK_MAX_LENGTH = {
  ipAddress: 40,
  redirectUrl: 500,
  tranId: 100,
  transactionIdText: 100,
  poweredByText: 100,
  poweredByUrl: 500,
  donateButtonText: 100,
  language: 35,
  defaultCountryCode: 2,
  theme: 5000,
  firstName: HOLDER_LIMITS.firstName,
  lastName: HOLDER_LIMITS.lastName,
  email: HOLDER_LIMITS.email,
  street: HOLDER_LIMITS.street,
  city: HOLDER_LIMITS.city,
  state: HOLDER_LIMITS.state,
  zip: HOLDER_LIMITS.zip,
  country: HOLDER_LIMITS.country,
  phone: 20,
  externalCardToken: 200,
  externalCheckToken: 200,
  externalEventId: 10,
  externalEventName: 500,
  externalConstituentId: HOLDER_LIMITS.externalConstituentId,
  externalCustomerId: HOLDER_LIMITS.customerKey,
  externalLineId: 200,
  themeFont: 100,
} as const;

export const MAX_THEME_FONTS = 50;
export const MAX_PAY_LINK_LINES = 100;

/**
 * `Recurring` of a line, as the original embedded form numbers it, plus 9 Semi-Monthly (this
 * service's extension). The names are the recurring profile's BillingFrequency values.
 */
export const RECURRING_FREQUENCIES: Readonly<Record<number, string>> = {
  1: 'Daily',
  2: 'Weekly',
  3: 'Bi-Weekly',
  4: 'Monthly',
  5: 'Bi-Monthly',
  6: 'Quarterly',
  7: 'Semi-Annually',
  8: 'Annually',
  9: 'Semi-Monthly',
};

/** WorkflowType: 1 payment (also when absent or 0), 3 tokenize a card, 4 manage saved cards. */
export type WorkflowType = 1 | 3 | 4;
export const WORKFLOW_PAYMENT = 1;
export const WORKFLOW_TOKENIZE = 3;
export const WORKFLOW_MANAGE_CARDS = 4;

/** One line of a link, as stored. */
export interface PayLinkLine {
  amountCents: Cents;
  /** TransactionSourceGroupId, 1-12. */
  type: number;
  /** 0 one-time, 1-9 a BillingFrequency (RECURRING_FREQUENCIES). */
  recurring: number;
  /** The payer covers the processing fees of the line (this service's extension of the line). */
  payFee: boolean;
  externalLineId?: string;
}

/** A line as the edge read it: the amount already in cents (or a violation the edge reported). */
export interface PayLinkLineInput {
  amountCents?: Cents;
  type?: number;
  recurring?: number;
  payFee?: boolean;
  externalLineId?: string;
}

/** What POST /api/paylink says, in the service's terms. Text as sent; the theme already sanitized. */
export interface PayLinkCreateInput {
  processorGuid?: string;
  integrationSource?: string;
  ipAddress?: string;
  redirectUrl?: string;
  lines: PayLinkLineInput[];
  tranId?: string;
  showTransactionId?: boolean;
  transactionIdText?: string;
  poweredByText?: string;
  poweredByUrl?: string;
  donateButtonText?: string;
  language?: string;
  defaultCountryCode?: string;
  /** Sanitized CSS (theme.ts). */
  theme?: string;
  themeFonts?: string[];
  firstName?: string;
  lastName?: string;
  email?: string;
  street?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
  phone?: string;
  tokenizeCard?: boolean;
  tokenGuid?: string;
  externalCardToken?: string;
  externalCheckToken?: string;
  externalEventId?: string;
  externalEventName?: string;
  workflowType?: number;
  externalConstituentId?: string;
  externalCustomerId?: string;
}

/**
 * Control characters: refused in the link's text fields (PostgreSQL cannot store U+0000, and none
 * belongs in a name, an address or a URL). The Theme, CSS, may have tabs and line breaks.
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F]/;
export const THEME_CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

const GATEWAY_KEY = /^\d{1,15}$/;
/**
 * "Open Sans", "Open Sans:400,700": a family name, optionally with weights 100-900. Name and
 * weights are matched apart, each by an expression that cannot backtrack: one expression for
 * both takes seconds on a few thousand characters (entries are at most 100).
 */
const THEME_FONT_FAMILY = /^[A-Za-z0-9][A-Za-z0-9 _-]{0,63}$/;
const THEME_FONT_WEIGHTS = /^[1-9]00(?:\s*,\s*[1-9]00)*$/;

const blank = (v: string | undefined): v is undefined => v === undefined || v.trim() === '';

/** The family name of a ThemeFonts entry, or undefined when the entry is not a font name with weights. */
export function themeFontFamily(entry: string): string | undefined {
  const colon = entry.indexOf(':');
  const family = (colon < 0 ? entry : entry.slice(0, colon)).trim();
  if (!THEME_FONT_FAMILY.test(family)) return undefined;
  if (colon >= 0 && !THEME_FONT_WEIGHTS.test(entry.slice(colon + 1).trim())) return undefined;
  return family.replace(/\s+/g, ' ');
}

/** WorkflowType as stored: absent and 0 mean a payment. */
export function workflowOf(value: number | undefined): WorkflowType | undefined {
  if (value === undefined || value === 0 || value === 1) return 1;
  if (value === 3 || value === 4) return value;
  return undefined;
}

/** 3-letter currency of a link: from its Country, else DefaultCountryCode (CAD, AUD, else USD). */
export function linkCurrency(country: string | undefined, defaultCountryCode: string | undefined): string {
  const c = (country?.trim() || defaultCountryCode?.trim() || '').toUpperCase();
  return c === 'CA' ? 'CAD' : c === 'AU' ? 'AUD' : 'USD';
}

class Violations {
  readonly list: RuleViolation[] = [];
  /** Fields already reported (one violation each): a Set, since a search of the list grows with the square of the lines. */
  readonly #fields = new Set<string>();
  add(code: RuleName, field: string, message: string) {
    if (this.#fields.has(field)) return;
    this.#fields.add(field);
    this.list.push({ code, field, message: `{${field}} ${message}.` });
  }
  maxLength(field: keyof typeof PAY_LINK_MAX_LENGTH, value: string | undefined) {
    const max = PAY_LINK_MAX_LENGTH[field];
    if (value !== undefined && value.length > max) this.add(Rule.MaxLength, field, `must be at most ${max} characters`);
  }
  noControlCharacters(field: string, value: string | undefined) {
    if (value !== undefined && CONTROL_CHARACTERS.test(value)) this.add(Rule.InvalidFormat, field, 'must not contain control characters');
  }
  check(field: string, value: string | undefined, problem: (v: string) => string | undefined, code: RuleName = Rule.InvalidFormat) {
    if (blank(value)) return;
    const p = problem(value.trim());
    if (p) this.add(code, field, p);
  }
}

/** Every rule of the create request that needs no database, all at once. */
export function payLinkViolations(input: PayLinkCreateInput): RuleViolation[] {
  const v = new Violations();
  const texts = [
    'ipAddress', 'redirectUrl', 'tranId', 'transactionIdText', 'poweredByText', 'poweredByUrl', 'donateButtonText', 'language',
    'defaultCountryCode', 'firstName', 'lastName', 'email', 'street', 'city', 'state', 'zip', 'country', 'phone',
    'externalCardToken', 'externalCheckToken', 'externalEventId', 'externalEventName', 'externalConstituentId', 'externalCustomerId',
  ] as const;
  for (const field of texts) {
    v.maxLength(field, input[field]);
    v.noControlCharacters(field, input[field]);
  }
  v.noControlCharacters('processorGuid', input.processorGuid);
  v.noControlCharacters('integrationSource', input.integrationSource);
  v.noControlCharacters('tokenGuid', input.tokenGuid);

  if (blank(input.redirectUrl)) v.add(Rule.Required, 'redirectUrl', 'is required');
  v.check('redirectUrl', input.redirectUrl, absoluteHttpUrlProblem);
  v.check('poweredByUrl', input.poweredByUrl, absoluteHttpUrlProblem);
  v.check('ipAddress', input.ipAddress, ipProblem);
  v.check('email', input.email, emailProblem);
  v.check('phone', input.phone, phoneProblem);
  v.check('country', input.country, countryProblem);
  v.check('defaultCountryCode', input.defaultCountryCode, countryProblem);
  const country = blank(input.country) ? (blank(input.defaultCountryCode) ? undefined : input.defaultCountryCode.trim()) : input.country.trim();
  v.check('zip', input.zip, (z) => zipProblem(z, country));
  v.check('state', input.state, (s) => stateProblem(s, country));
  v.check('processorGuid', input.processorGuid, (g) => (GUID.test(g) ? undefined : 'must be a GUID'));
  v.check('integrationSource', input.integrationSource, (g) => (GUID.test(g) ? undefined : 'must be a GUID'));
  v.check('tokenGuid', input.tokenGuid, (g) => (GUID.test(g) || GATEWAY_KEY.test(g) ? undefined : "must be a GUID (or the token's CcInfoKey or CheckInfoKey)"));
  v.check('externalCardToken', input.externalCardToken, (k) => (GATEWAY_KEY.test(k) ? undefined : 'must be a CcInfoKey (digits)'));
  v.check('externalCheckToken', input.externalCheckToken, (k) => (GATEWAY_KEY.test(k) ? undefined : 'must be a CheckInfoKey (digits)'));
  if (!blank(input.tokenGuid) && !blank(input.externalCardToken)) {
    v.add(Rule.PayLinkTokenConflict, 'externalCardToken', 'cannot be sent with {tokenGuid}: both name the card to pay with; send one');
  }

  const fonts = input.themeFonts ?? [];
  if (fonts.length > MAX_THEME_FONTS) v.add(Rule.OutOfRange, 'themeFonts', `may have at most ${MAX_THEME_FONTS} items`);
  fonts.forEach((font, i) => {
    const field = `themeFonts[${i}]`;
    if (font.length > PAY_LINK_MAX_LENGTH.themeFont) v.add(Rule.MaxLength, field, `must be at most ${PAY_LINK_MAX_LENGTH.themeFont} characters`);
    else if (!themeFontFamily(font)) {
      v.add(Rule.InvalidFormat, field, 'must name a local font family, optionally with weights (Open Sans:400,700)');
    }
  });

  const workflow = workflowOf(input.workflowType);
  if (!workflow) {
    v.add(Rule.InvalidValue, 'workflowType', 'must be 1 (payment, the default), 3 (tokenize a card) or 4 (manage saved cards)');
  }
  if ((workflow === 3 || workflow === 4) && blank(input.externalConstituentId)) {
    v.add(Rule.PayLinkConstituentRequired, 'externalConstituentId', `is required for WorkflowType ${workflow}: it names the customer whose cards are kept`);
  }
  lineViolations(input, workflow, v);
  return v.list;
}

function lineViolations(input: PayLinkCreateInput, workflow: WorkflowType | undefined, v: Violations) {
  const lines = input.lines;
  if (workflow === 3 || workflow === 4) {
    if (lines.length > 0) v.add(Rule.PayLinkLinesNotAllowed, 'paymentLines', `must be empty for WorkflowType ${workflow}: nothing is paid`);
    return;
  }
  if (lines.length === 0) {
    v.add(Rule.Required, 'paymentLines', 'must have at least one line');
    return;
  }
  if (lines.length > MAX_PAY_LINK_LINES) v.add(Rule.OutOfRange, 'paymentLines', `may have at most ${MAX_PAY_LINK_LINES} items`);
  lines.forEach((line, i) => {
    const field = (name: string) => `paymentLines[${i}].${name}`;
    if (line.type === undefined) v.add(Rule.Required, field('type'), 'is required');
    else if (!Object.hasOwn(TRANSACTION_SOURCE_GROUPS, line.type)) v.add(Rule.InvalidValue, field('type'), 'must be a TransactionSourceGroupId from 1 to 12');
    const recurring = line.recurring ?? 0;
    if (recurring !== 0 && !Object.hasOwn(RECURRING_FREQUENCIES, recurring)) {
      v.add(Rule.InvalidValue, field('recurring'), 'must be 0 (one-time) or 1-9 (Daily, Weekly, Bi-Weekly, Monthly, Bi-Monthly, Quarterly, Semi-Annually, Annually, Semi-Monthly)');
    }
    if (line.externalLineId !== undefined && line.externalLineId.length > PAY_LINK_MAX_LENGTH.externalLineId) {
      v.add(Rule.MaxLength, field('externalLineId'), `must be at most ${PAY_LINK_MAX_LENGTH.externalLineId} characters`);
    }
    v.noControlCharacters(field('externalLineId'), line.externalLineId);
  });
  if (lines.length > 1 && lines.some((l) => (l.recurring ?? 0) !== 0)) {
    v.add(Rule.PayLinkRecurringLineNotAlone, 'paymentLines', 'must have exactly one line when a line is recurring');
  }
}
