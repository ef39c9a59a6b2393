import type { FeeQuote } from '../../domain/fees.ts';
import type { PayLink } from '../../modules/paylinks/paylink-service.ts';
import type { SavedInstruments } from '../../modules/paylinks/checkout-service.ts';
import type { StoredToken } from '../../modules/vault/token-service.ts';
import { countryOptions } from './countries.ts';
import { type FormState, alertBox, input, select } from './form.ts';
import { attrs, esc } from './html.ts';
import { type Messages, type PageLanguage, fill, formatMoney } from './i18n.ts';

/** The payment form (WorkflowType 1) and the card form of WorkflowType 3 and 4. */

export interface CheckoutView {
  link: PayLink;
  t: Messages;
  lang: PageLanguage;
  csrfToken: string;
  /** Fee quotes by method; undefined when the link's lines cannot be quoted any more. */
  quotes: { card: FeeQuote; ach: FeeQuote } | undefined;
  saved: SavedInstruments;
  state: FormState;
}

export function savedCardText(t: Messages, token: StoredToken): string {
  const card = fill(t.savedCard, { brand: token.cardType ?? t.receiptCard, last4: token.last4 });
  return token.expMonth && token.expYear ? `${card} (${fill(t.savedCardExpires, { month: token.expMonth, year: token.expYear })})` : card;
}

/**
 * The polite live region the page script writes "Your payment is being processed…" into: present
 * (empty) from the start, as screen readers only announce changes to a region they already know.
 */
const STATUS_REGION = '<p id="pl-status" class="pl-sr" role="status"></p>';

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`;
}

function formStart(view: { link: PayLink; csrfToken: string }, action: string, extra = ''): string {
  return `<form method="post" action="/paylink/${esc(view.link.id)}" novalidate data-pl-form${extra}>` + hidden('CsrfToken', view.csrfToken) + hidden('Action', action);
}

function summary(view: CheckoutView): string {
  const { link, t, lang } = view;
  const money = (cents: number) => esc(formatMoney(cents, link.settings.currency, lang));
  let rows = '';
  let subtotal = 0;
  for (const line of link.lines) {
    subtotal += line.amountCents;
    const recurring = line.recurring ? `<span class="pl-sub">${esc(t.recurring[line.recurring] ?? '')}</span>` : '';
    rows += `<tr><td>${esc(t.lineTypes[line.type] ?? t.lineTypes[12])}${recurring}</td><td class="pl-amount">${money(line.amountCents)}</td></tr>`;
  }
  const payerCoversFees = link.lines.some((l) => l.payFee);
  const recurringLine = link.lines.find((l) => l.recurring);
  const tranIdText = link.settings.transactionIdText ?? t.fields.TranId!;
  const tranId =
    link.settings.showTransactionId && link.tranId
      ? `<p class="pl-ref">${fill(t.labelled, { label: `<strong>${esc(tranIdText)}</strong>`, value: esc(link.tranId) })}</p>`
      : '';
  return (
    `<section class="pl-box pl-summary" aria-labelledby="pl-summary-title"><h2 id="pl-summary-title">${esc(t.summary)}</h2>` +
    `<table class="pl-lines pl-disclosure"><thead><tr><th scope="col">${esc(t.lineColumn)}</th><th scope="col" class="pl-amount">${esc(t.amountColumn)}</th></tr></thead>` +
    `<tbody>${rows}</tbody><tfoot><tr><th scope="row">${esc(payerCoversFees ? t.subtotal : t.total)}</th><td class="pl-amount">${money(subtotal)}</td></tr></tfoot></table>` +
    tranId +
    (recurringLine
      ? `<p class="pl-note pl-disclosure">${esc(fill(recurringLine.payFee ? t.recurringNoteWithFees : t.recurringNote, { frequency: t.recurring[recurringLine.recurring] ?? '' }))}</p>`
      : '') +
    `</section>`
  );
}

/**
 * "Total by card: $103.50" (with the fees the payer covers), inside a method's panel. The totals,
 * the lines table and the recurring note are `pl-disclosure`: no theme can hide them (layout.ts).
 */
function methodTotal(view: CheckoutView, quote: FeeQuote | undefined, label: string, note?: string): string {
  if (!quote) return '';
  const { link, t, lang } = view;
  const subtotal = link.lines.reduce((sum, l) => sum + l.amountCents, 0);
  const fees = quote.totalPaymentCents - subtotal;
  const money = (cents: number) => esc(formatMoney(cents, link.settings.currency, lang));
  const feeLine = fees > 0 ? `<span class="pl-sub">${fill(t.labelled, { label: esc(t.feesCovered), value: money(fees) })}</span>` : '';
  const noteLine = fees > 0 && note ? `<span class="pl-sub">${esc(note)}</span>` : '';
  return `<p class="pl-total pl-disclosure">${fill(t.labelled, { label: esc(label), value: money(quote.totalPaymentCents) })}${feeLine}${noteLine}</p>`;
}

function choice(name: string, id: string, value: string, checked: boolean, text: string): string {
  return `<div class="pl-choice"><input${attrs({ type: 'radio', name, id, value, checked })}><label for="${id}">${esc(text)}</label></div>`;
}

/** A saved method and "use another" as a radio group of its own, named by its legend. */
function choiceGroup(legend: string, choices: string): string {
  return `<fieldset class="pl-choice-group"><legend>${esc(legend)}</legend><div class="pl-choices">${choices}</div></fieldset>`;
}

function payerFields(view: { t: Messages; lang: PageLanguage; state: FormState }, full: boolean): string {
  const { t, lang, state } = view;
  const s = state;
  let html = `<fieldset><legend>${esc(t.yourDetails)}</legend><div class="pl-grid">`;
  html += input(s, t, 'FirstName', { autocomplete: 'given-name', maxlength: 50 });
  html += input(s, t, 'LastName', { autocomplete: 'family-name', maxlength: 50 });
  if (full) {
    html += input(s, t, 'Email', { type: 'email', autocomplete: 'email', inputmode: 'email', maxlength: 100, required: true, wide: true });
    html += input(s, t, 'Phone', { type: 'tel', autocomplete: 'tel', inputmode: 'tel', maxlength: 20, wide: true, hint: t.hints.Phone });
  }
  html += input(s, t, 'Street', { autocomplete: 'address-line1', maxlength: 50, wide: true });
  if (full) {
    html += input(s, t, 'City', { autocomplete: 'address-level2', maxlength: 50 });
    // Required for bank account payments only: said in its hint, and marked while that tab is chosen.
    html += input(s, t, 'State', { autocomplete: 'address-level1', maxlength: 50, hint: t.hints.State, achRequired: t.required });
  }
  html += input(s, t, 'Zip', { autocomplete: 'postal-code', maxlength: 10 });
  html += select(s, t, 'Country', countryOptions(lang, s.values.Country?.toUpperCase() || null, t.chooseCountry), { autocomplete: 'country' });
  return `${html}</div></fieldset>`;
}

function cardFields(s: FormState, t: Messages, withName: boolean, withCvv: boolean): string {
  let html = '<div class="pl-grid">';
  if (withName) html += input(s, t, 'NameOnCard', { autocomplete: 'cc-name', maxlength: 25, required: true, wide: true });
  html += input(s, t, 'CardNum', { autocomplete: 'cc-number', inputmode: 'numeric', maxlength: 30, required: true, wide: true });
  html += input(s, t, 'ExpMonth', { autocomplete: 'cc-exp-month', inputmode: 'numeric', maxlength: 2, required: true });
  html += input(s, t, 'ExpYear', { autocomplete: 'cc-exp-year', inputmode: 'numeric', maxlength: 2, required: true });
  if (withCvv) html += input(s, t, 'CVNum', { autocomplete: 'cc-csc', inputmode: 'numeric', maxlength: 4 });
  return `${html}</div>`;
}

/** The payment page's form: payer, method tabs (card / ACH), totals, submit. */
export function paymentForm(view: CheckoutView): string {
  const { link, t, state: s, saved } = view;
  const card = s.method === 'card';
  let html = formStart(view, 'pay', ' id="pl-form"');
  html += payerFields(view, true);

  html += `<fieldset class="pl-box pl-methods"><legend>${esc(t.paymentMethod)}</legend><div class="pl-tabs">`;
  html += `<div class="pl-tab"><input${attrs({ type: 'radio', name: 'PaymentMethod', id: 'pl-method-card', value: 'card', checked: card })}><label for="pl-method-card">${esc(t.methodCard)}</label></div>`;
  html += `<div class="pl-tab"><input${attrs({ type: 'radio', name: 'PaymentMethod', id: 'pl-method-ach', value: 'ach', checked: !card, 'aria-describedby': 'pl-ach-note' })}><label for="pl-method-ach">${esc(t.methodAch)}</label></div></div>`;

  html += '<div class="pl-panel-card">';
  if (saved.card) {
    html += choiceGroup(
      t.cardToUse,
      choice('CardChoice', 'pl-card-saved', 'saved', s.useSavedCard, fill(t.useSavedCard, { card: savedCardText(t, saved.card) })) +
        choice('CardChoice', 'pl-card-new', 'new', !s.useSavedCard, t.useNewCard),
    );
  }
  html += `<div class="pl-card-new">${cardFields(s, t, true, true)}</div>`;
  html += methodTotal(view, view.quotes?.card, t.totalCard, t.cardBrandNote);
  html += '</div>';

  // Which accounts the tab takes: shown in its panel, and the ACH radio's description.
  html += `<div class="pl-panel-ach"><p class="pl-hint pl-ach-note" id="pl-ach-note">${esc(t.achCountries)}</p>`;
  if (saved.bank) {
    html += choiceGroup(
      t.accountToUse,
      choice('BankChoice', 'pl-bank-saved', 'saved', s.useSavedBank, fill(t.useSavedAccount, { account: fill(t.savedAccount, { last4: saved.bank.last4 }) })) +
        choice('BankChoice', 'pl-bank-new', 'new', !s.useSavedBank, t.useNewAccount),
    );
  }
  html += '<div class="pl-bank-new"><div class="pl-grid">';
  html += input(s, t, 'NameOnCheck', { autocomplete: 'name', maxlength: 25, required: true, wide: true });
  html += input(s, t, 'CheckRoutingNumber', { inputmode: 'numeric', maxlength: 9, required: true });
  html += input(s, t, 'CheckAccountNumber', { inputmode: 'numeric', maxlength: 20, required: true });
  html += select(s, t, 'CheckAccountTypeId', [['1', t.checking], ['2', t.savings]], { required: true });
  html += select(s, t, 'CheckTypeId', [['1', t.personal], ['2', t.corporate], ['3', t.government]], { required: true });
  html += '</div></div>';
  html += methodTotal(view, view.quotes?.ach, t.totalAch);
  html += '</div></fieldset>';

  if (link.settings.showTransactionId && !link.tranId) {
    html += `<div class="pl-box"><div class="pl-grid">${input(s, t, 'TranId', { maxlength: 100, wide: true, label: link.settings.transactionIdText ?? t.fields.TranId })}</div></div>`;
  }
  html += `<button type="submit" id="pl-submit" class="pl-button"${attrs({ 'data-processing': t.processing, 'data-processing-status': t.processingPayment })}>${esc(link.settings.donateButtonText ?? t.submitPayment)}</button>`;
  html += `${STATUS_REGION}<p class="pl-note">${esc(t.secureNote)}</p></form>`;
  return html;
}

/** The whole payment page body: heading, alert, summary, form. */
export function paymentPage(view: CheckoutView): string {
  const { link, t } = view;
  return (
    `<h1>${esc(t.titlePayment)}</h1><p class="pl-intro">${esc(fill(t.intro, { partner: link.partner.name }))}</p>` +
    alertBox(view.state, t) +
    summary(view) +
    paymentForm(view)
  );
}

/** WorkflowType 3 (and the add form of 4): a card and its holder, nothing charged, no CVV. */
export function saveCardForm(view: Omit<CheckoutView, 'quotes' | 'saved'>): string {
  const { link, t, state: s } = view;
  let html = formStart(view, 'save-card', ' id="pl-form"');
  html += payerFields(view, false);
  html += `<fieldset class="pl-box"><legend>${esc(t.methodCard)}</legend>${cardFields(s, t, false, false)}</fieldset>`;
  html += `<button type="submit" id="pl-submit" class="pl-button"${attrs({ 'data-processing': t.processing, 'data-processing-status': t.processingCard })}>${esc(link.settings.donateButtonText ?? t.submitSaveCard)}</button>`;
  html += `${STATUS_REGION}<p class="pl-note">${esc(t.secureNote)}</p></form>`;
  return html;
}

export function tokenizePage(view: Omit<CheckoutView, 'quotes' | 'saved'>): string {
  const { link, t } = view;
  return (
    `<h1>${esc(t.titleTokenize)}</h1><p class="pl-intro">${esc(fill(t.introTokenize, { partner: link.partner.name }))}</p>` +
    alertBox(view.state, t) +
    saveCardForm(view)
  );
}

/** WorkflowType 4: the customer's cards, each with a delete button, and a form to add one. */
export function manageCardsPage(view: Omit<CheckoutView, 'quotes' | 'saved'> & { cards: StoredToken[] }): string {
  const { link, t } = view;
  let list = '';
  for (const card of view.cards) {
    const text = savedCardText(t, card);
    list +=
      `<li><span>${esc(text)}</span>` +
      formStart(view, 'delete-card') +
      hidden('TokenGuid', card.id) +
      `<button type="submit" class="pl-button pl-button-secondary">${esc(fill(t.deleteCard, { card: text }))}</button></form></li>`;
  }
  return (
    `<h1>${esc(t.titleManage)}</h1><p class="pl-intro">${esc(fill(t.introManage, { partner: link.partner.name }))}</p>` +
    alertBox(view.state, t) +
    `<section class="pl-box" aria-labelledby="pl-cards-title"><h2 id="pl-cards-title">${esc(t.savedCards)}</h2>` +
    (list ? `<ul class="pl-cards">${list}</ul>` : `<p>${esc(t.noSavedCards)}</p>`) +
    `</section><section aria-labelledby="pl-add-title"><h2 id="pl-add-title">${esc(t.addCard)}</h2>${saveCardForm(view)}</section>` +
    `<p><a${attrs({ href: link.redirectUrl })}>${esc(fill(t.returnToSite, { partner: link.partner.name }))}</a></p>`
  );
}

/**
 * WorkflowType 4: "Delete Visa ending in 4242 (expires 12/30)? Yes / No", the step between a
 * delete button and the deletion, server-rendered so it works without script. Yes posts the
 * delete again with Confirm=yes; No is a link back to the list.
 */
export function deleteCardConfirmPage(view: { link: PayLink; t: Messages; csrfToken: string; card: StoredToken }): string {
  const { link, t, card } = view;
  return (
    `<h1>${esc(t.deleteConfirmTitle)}</h1>` +
    `<section class="pl-box"><p id="pl-delete-question">${esc(fill(t.deleteConfirm, { card: savedCardText(t, card) }))}</p>` +
    formStart(view, 'delete-card', ' aria-labelledby="pl-delete-question" class="pl-confirm"') +
    hidden('TokenGuid', card.id) +
    hidden('Confirm', 'yes') +
    `<button type="submit" class="pl-button">${esc(t.deleteYes)}</button> ` +
    `<a class="pl-button pl-button-secondary" href="/paylink/${esc(link.id)}">${esc(t.deleteNo)}</a></form></section>`
  );
}
