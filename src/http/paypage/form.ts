import { Rule, type RuleViolation } from '../../domain/rules.ts';
import type { PayLink } from '../../modules/paylinks/paylink-service.ts';
import type { CheckoutSubmission } from '../../modules/paylinks/checkout-service.ts';
import { attrs, esc } from './html.ts';
import { type Messages, entry, fill } from './i18n.ts';
import { CONTROL_CHARACTERS } from '../../domain/control-characters.ts';

/**
 * The page's form: reading a submission, the state a form is rendered from (values, errors,
 * the alert), and the markup of one labelled field. Field names and ids are the names of the
 * payment request (`CardNum`, `Zip` ...); a service's violation is put on the form field its
 * field stands for (FORM_FIELDS).
 */

/** Values that are never written back into a page: card and account numbers, security codes. */
const NEVER_ECHOED = new Set(['CardNum', 'CVNum', 'CheckAccountNumber', 'CsrfToken']);
const ECHOED = [
  'FirstName', 'LastName', 'Email', 'Phone', 'Street', 'City', 'State', 'Zip', 'Country', 'NameOnCard', 'ExpMonth', 'ExpYear',
  'NameOnCheck', 'CheckRoutingNumber', 'CheckAccountTypeId', 'CheckTypeId', 'TranId',
];
/** The fields a violation can name and the page shows (others become one general message). */
export const PAYER_FIELDS = ['FirstName', 'LastName', 'Email', 'Phone', 'Street', 'City', 'State', 'Zip', 'Country'];
export const CARD_FIELDS = ['NameOnCard', 'CardNum', 'ExpMonth', 'ExpYear', 'CVNum'];
export const BANK_FIELDS = ['NameOnCheck', 'CheckRoutingNumber', 'CheckAccountNumber', 'CheckAccountTypeId', 'CheckTypeId'];
/** Every field in the order the forms show them: the error summary lists its problems in this order. */
const FIELD_ORDER = [...PAYER_FIELDS, ...CARD_FIELDS, ...BANK_FIELDS, 'TranId'];

/**
 * The form field of each field the checkout's services name (camelCase: `cardNum`, `tokenRef`).
 * A field named as the form names it stands for itself.
 */
const FORM_FIELDS: Readonly<Record<string, string>> = {
  firstName: 'FirstName',
  lastName: 'LastName',
  email: 'Email',
  phone: 'Phone',
  street: 'Street',
  city: 'City',
  state: 'State',
  zip: 'Zip',
  country: 'Country',
  nameOnCard: 'NameOnCard',
  cardNum: 'CardNum',
  expMonth: 'ExpMonth',
  expYear: 'ExpYear',
  cvNum: 'CVNum',
  nameOnCheck: 'NameOnCheck',
  checkRoutingNumber: 'CheckRoutingNumber',
  checkAccountNumber: 'CheckAccountNumber',
  checkAccountTypeId: 'CheckAccountTypeId',
  checkTypeId: 'CheckTypeId',
  tranId: 'TranId',
  tokenRef: 'TokenGuid',
  tokenGuid: 'TokenGuid',
};

/** The form field a service's field stands for (unknown fields as they are). */
export function formField(field: string): string {
  return Object.hasOwn(FORM_FIELDS, field) ? FORM_FIELDS[field]! : field;
}

export type FormBody = Record<string, string | string[] | undefined>;

export interface FormState {
  values: Record<string, string>;
  method: 'card' | 'ach';
  useSavedCard: boolean;
  useSavedBank: boolean;
  /** Field (wire name) -> message. */
  errors: Map<string, string>;
  /** A message for the whole form: a decline, a refused form, a notice. */
  alert?: { kind: 'error' | 'ok'; text: string; detail?: string };
}

/**
 * Control characters (C0, DEL, C1): no form field of the page can hold one (browsers strip line
 * breaks from text inputs), and PostgreSQL cannot store U+0000. They are removed from form values.
 */
const ALL_CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTERS.source, 'g');

/**
 * One value of an urlencoded body (the first, when a name is repeated), trimmed to a sane size,
 * without control characters.
 */
export function formValue(body: FormBody, name: string): string | undefined {
  if (!Object.hasOwn(body, name)) return undefined;
  const raw = body[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value.slice(0, 5000).replace(ALL_CONTROL_CHARACTERS, '') : undefined;
}

export function readSubmission(body: FormBody, clientIp: string): CheckoutSubmission {
  const v = (name: string) => formValue(body, name);
  return {
    method: v('PaymentMethod') === 'ach' ? 'ach' : 'card',
    payer: {
      firstName: v('FirstName'),
      lastName: v('LastName'),
      email: v('Email'),
      phone: v('Phone'),
      street: v('Street'),
      city: v('City'),
      state: v('State'),
      zip: v('Zip'),
      country: v('Country'),
    },
    card: {
      useSaved: v('CardChoice') !== 'new',
      nameOnCard: v('NameOnCard'),
      cardNum: v('CardNum'),
      expMonth: v('ExpMonth'),
      expYear: v('ExpYear'),
      cvNum: v('CVNum'),
    },
    bank: {
      useSaved: v('BankChoice') !== 'new',
      nameOnCheck: v('NameOnCheck'),
      checkRoutingNumber: v('CheckRoutingNumber'),
      checkAccountNumber: v('CheckAccountNumber'),
      checkAccountTypeId: v('CheckAccountTypeId'),
      checkTypeId: v('CheckTypeId'),
    },
    tranId: v('TranId'),
    clientIp,
  };
}

/** The form as the link prefills it. */
export function initialState(link: PayLink, saved: { card: boolean; bank: boolean }): FormState {
  const p = link.settings.prefill;
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ');
  const holder = name.length <= 25 ? name : '';
  const values: Record<string, string> = {
    FirstName: p.firstName ?? '',
    LastName: p.lastName ?? '',
    Email: p.email ?? '',
    Phone: p.phone ?? '',
    Street: p.street ?? '',
    City: p.city ?? '',
    State: p.state ?? '',
    Zip: p.zip ?? '',
    Country: p.country ?? link.settings.defaultCountryCode ?? '',
    NameOnCard: holder,
    NameOnCheck: holder,
    CheckAccountTypeId: '1',
    CheckTypeId: '1',
  };
  return { values, method: saved.bank && !saved.card ? 'ach' : 'card', useSavedCard: saved.card, useSavedBank: saved.bank, errors: new Map() };
}

/** The form as the payer sent it (without card or account numbers), to render it again. */
export function submittedState(body: FormBody, saved: { card: boolean; bank: boolean }): FormState {
  const values: Record<string, string> = {};
  for (const name of ECHOED) {
    if (NEVER_ECHOED.has(name)) continue;
    values[name] = formValue(body, name) ?? '';
  }
  return {
    values,
    method: formValue(body, 'PaymentMethod') === 'ach' ? 'ach' : 'card',
    useSavedCard: saved.card && formValue(body, 'CardChoice') !== 'new',
    useSavedBank: saved.bank && formValue(body, 'BankChoice') !== 'new',
    errors: new Map(),
  };
}

/**
 * Puts violations on the fields the page shows, in the page's language; a violation of a field
 * the payer cannot change (the link's lines, processor, a saved token) becomes the alert.
 */
export function applyViolations(state: FormState, violations: RuleViolation[], t: Messages, shown: Set<string>, partnerName: string): void {
  const general: string[] = [];
  for (const violation of violations) {
    const v = violation.field === undefined ? violation : { ...violation, field: formField(violation.field) };
    const field = v.field ?? '';
    if (shown.has(field)) {
      if (!state.errors.has(field)) state.errors.set(field, fieldMessage(t, v));
    } else if (field === 'TokenGuid') general.push(t.errors.savedUnavailable);
    else general.push(fill(t.errors.linkProblem, { partner: partnerName }));
  }
  if (general.length > 0) state.alert = { kind: 'error', text: [...new Set(general)].join(' ') };
}

/** The message of a violation of a form field (named as the form names it), in the page's language. */
export function fieldMessage(t: Messages, v: RuleViolation): string {
  const e = t.errors;
  const field = v.field ?? '';
  switch (v.code) {
    case Rule.Required:
      return field === 'Country' ? e.country : e.required;
    case Rule.MaxLength:
      return e.tooLong;
    case Rule.CardNumberInvalid:
      return e.cardNumber;
    case Rule.CardExpired:
      return e.cardExpired;
    case Rule.RoutingNumberInvalid:
      return e.routing;
    case Rule.AccountNumberInvalid:
      return e.account;
    case Rule.PaymentMethodNotAccepted:
      return e.notAccepted;
    case Rule.InvalidValue:
      if (field === 'Country') return e.achCountry;
      if (field === 'CheckAccountTypeId' || field === 'CheckTypeId') return e.accountType;
      return e.invalid;
    default: {
      const byField: Record<string, string> = {
        Email: e.email,
        Phone: e.phone,
        Zip: e.zip,
        State: e.state,
        Country: e.country,
        CardNum: e.cardNumber,
        ExpMonth: e.expMonth,
        ExpYear: e.expYear,
        CVNum: e.cvv,
        CheckRoutingNumber: e.routing,
        CheckAccountNumber: e.account,
      };
      return entry(byField, field) ?? e.invalid;
    }
  }
}

export interface FieldOptions {
  type?: 'text' | 'email' | 'tel';
  autocomplete?: string;
  inputmode?: 'numeric' | 'text' | 'email' | 'tel';
  maxlength?: number;
  required?: boolean;
  wide?: boolean;
  /** A label other than the catalogue's. */
  label?: string;
  /** What the field takes, shown under its label and tied to it with aria-describedby. */
  hint?: string;
  /** A "(required ...)" mark the page shows only while the bank account tab is chosen (CSS :has()). */
  achRequired?: string;
}

/** The ids an input or select is described by: its hint, then its error. */
function describedBy(id: string, o: FieldOptions, error: string | undefined): string | undefined {
  const ids = [o.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length > 0 ? ids.join(' ') : undefined;
}

function hint(id: string, o: FieldOptions): string {
  return o.hint ? `<p class="pl-hint" id="${id}-hint">${esc(o.hint)}</p>` : '';
}

/** A labelled input with its error, tied together for assistive technology. */
export function input(state: FormState, t: Messages, name: string, o: FieldOptions = {}): string {
  const id = `pl-${name}`;
  const error = state.errors.get(name);
  const value = NEVER_ECHOED.has(name) ? '' : (state.values[name] ?? '');
  return (
    `<div class="pl-field${o.wide ? ' pl-wide' : ''}">` +
    label(id, o.label ?? entry(t.fields, name) ?? name, o.required ? t.required : undefined, o.achRequired) +
    hint(id, o) +
    `<input${attrs({
      id,
      name,
      type: o.type ?? 'text',
      value,
      autocomplete: o.autocomplete ?? 'off',
      inputmode: o.inputmode,
      maxlength: o.maxlength,
      required: o.required,
      spellcheck: o.inputmode === 'numeric' ? 'false' : undefined,
      'aria-invalid': error ? 'true' : undefined,
      'aria-describedby': describedBy(id, o, error),
    })}>` +
    (error ? `<p class="pl-error" id="${id}-error">${esc(error)}</p>` : '') +
    `</div>`
  );
}

/** A labelled select; `options` are [value, text] pairs, or ready markup. */
export function select(state: FormState, t: Messages, name: string, options: [string, string][] | string, o: FieldOptions = {}): string {
  const id = `pl-${name}`;
  const error = state.errors.get(name);
  const value = state.values[name] ?? '';
  const markup =
    typeof options === 'string'
      ? options
      : options.map(([v, text]) => `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(text)}</option>`).join('');
  return (
    `<div class="pl-field${o.wide ? ' pl-wide' : ''}">` +
    label(id, o.label ?? entry(t.fields, name) ?? name, o.required ? t.required : undefined, o.achRequired) +
    hint(id, o) +
    `<select${attrs({
      id,
      name,
      autocomplete: o.autocomplete,
      required: o.required,
      'aria-invalid': error ? 'true' : undefined,
      'aria-describedby': describedBy(id, o, error),
    })}>${markup}</select>` +
    (error ? `<p class="pl-error" id="${id}-error">${esc(error)}</p>` : '') +
    `</div>`
  );
}

function label(id: string, text: string, required: string | undefined, achRequired: string | undefined): string {
  const mark = required
    ? ` <span class="pl-req">(${esc(required)})</span>`
    : achRequired
      ? ` <span class="pl-req pl-req-ach">(${esc(achRequired)})</span>`
      : '';
  return `<label for="${id}">${esc(text)}${mark}</label>`;
}

/**
 * The alert at the top of a form: the list of field errors (each a link to its field) and/or a
 * message for the whole form. Focused on load by the page script, announced as an alert.
 */
export function alertBox(state: FormState, t: Messages): string {
  // In the form's order, not the order the payment service found the problems in.
  const rank = (field: string) => (FIELD_ORDER.includes(field) ? FIELD_ORDER.indexOf(field) : FIELD_ORDER.length);
  const items = [...state.errors.entries()].sort(([a], [b]) => rank(a) - rank(b));
  if (items.length === 0 && !state.alert) return '';
  const kind = state.alert?.kind === 'ok' && items.length === 0 ? ' pl-ok' : '';
  let html = `<div id="pl-alert" class="pl-alert${kind}" role="${kind ? 'status' : 'alert'}" tabindex="-1">`;
  if (state.alert) html += `<p>${esc(state.alert.text)}</p>${state.alert.detail ? `<p>${esc(state.alert.detail)}</p>` : ''}`;
  if (items.length > 0) {
    html += `<p>${esc(fill(t.errorSummary, { count: items.length }))}</p><ul>`;
    for (const [field, message] of items) html += `<li><a href="#pl-${esc(field)}">${esc(fill(t.labelled, { label: entry(t.fields, field) ?? field, value: message }))}</a></li>`;
    html += '</ul>';
  }
  return `${html}</div>`;
}
