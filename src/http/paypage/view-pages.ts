import type { PaymentRecord } from '../../modules/payments/payment-record.ts';
import type { PayLink } from '../../modules/paylinks/paylink-service.ts';
import type { StoredToken } from '../../modules/vault/token-service.ts';
import { esc } from './html.ts';
import { type Messages, type PageLanguage, fill, formatDate, formatMoney } from './i18n.ts';
import { savedCardText } from './view-checkout.ts';

/** The receipt of a completed link, and the pages that say a link cannot be used. */

export interface ReceiptView {
  link: PayLink;
  t: Messages;
  lang: PageLanguage;
  csrfToken: string;
  payment?: PaymentRecord;
  token?: StoredToken;
}

export function receiptPage(view: ReceiptView): string {
  const { link, t, lang, payment, token } = view;
  let body = `<h1>${esc(t.receiptTitle)}</h1>`;
  if (payment) {
    const p = payment.payment;
    const amount = formatMoney(p.totalAmountCents, p.currency ?? link.settings.currency, lang);
    const method =
      p.method === 'ach' ? fill(t.savedAccount, { last4: p.checkAccountLast4 ?? '' }) : fill(t.savedCard, { brand: p.cardType ?? t.receiptCard, last4: p.cardLast4 ?? '' });
    const recurring = link.lines.find((l) => l.recurring);
    body +=
      `<div id="pl-alert" class="pl-alert pl-ok" role="status" tabindex="-1"><p>${esc(fill(t.receiptPaid, { amount }))}</p></div>` +
      `<section class="pl-box"><dl class="pl-receipt">` +
      // Whom the payer paid: a receipt kept for taxes or a dispute must say.
      `<dt>${esc(t.receiptPaidTo)}</dt><dd>${esc(link.partner.name)}</dd>` +
      `<dt>${esc(t.receiptDate)}</dt><dd>${esc(formatDate(p.createdAt, lang))}</dd>` +
      `<dt>${esc(t.receiptMethod)}</dt><dd>${esc(method)}</dd>` +
      (p.tranId ? `<dt>${esc(link.settings.transactionIdText ?? t.receiptReference)}</dt><dd>${esc(p.tranId)}</dd>` : '') +
      (p.transactionId ? `<dt>${esc(t.receiptTransaction)}</dt><dd>${esc(p.transactionId)}</dd>` : '') +
      `</dl>` +
      (recurring && link.recurringProfileId
        ? `<p>${esc(fill(t.receiptRecurring, { amount: formatMoney(recurringCharge(recurring, payment), link.settings.currency, lang), frequency: t.recurring[recurring.recurring] ?? '' }))}</p>`
        : '') +
      `</section>`;
  } else {
    body +=
      `<div id="pl-alert" class="pl-alert pl-ok" role="status" tabindex="-1"><p>${esc(t.receiptSaved)}</p></div>` +
      (token ? `<section class="pl-box"><p>${esc(savedCardText(t, token))}</p></section>` : '');
  }
  body +=
    `<form method="post" action="/paylink/${esc(link.id)}" data-pl-form>` +
    `<input type="hidden" name="CsrfToken" value="${esc(view.csrfToken)}"><input type="hidden" name="Action" value="continue">` +
    `<button type="submit" class="pl-button">${esc(t.continue)}</button></form>`;
  return body;
}

/**
 * What each later charge of a link's recurring line will be, as its profile was made: the amount
 * charged today when the payer covers the fees (a recurring line is the link's only line), else
 * the line's amount.
 */
function recurringCharge(line: PayLink['lines'][number], payment: PaymentRecord): number {
  return line.payFee ? (payment.lines[0]?.paymentAmountCents ?? line.amountCents) : line.amountCents;
}

/** A page that only says something: unavailable link, not found, too many attempts, errors. */
export function messagePage(heading: string, message: string): string {
  return `<h1>${esc(heading)}</h1><div id="pl-alert" class="pl-alert" role="alert" tabindex="-1"><p>${esc(message)}</p></div>`;
}
