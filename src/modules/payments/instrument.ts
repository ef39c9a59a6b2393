import type { CheckedBankAccount } from '../../domain/bank.ts';
import { type CardPaymentMethodTypeId, type CheckedCard, cardBrand, checkCvv, checkExpiry } from '../../domain/cards.ts';
import { PaymentMethodType } from '../../domain/payment-status.ts';
import { Rule } from '../../domain/rules.ts';
import { ValidationError } from '../../platform/errors.ts';
import type { SaleRequest } from '../../processors/processor.ts';
import type { StoredToken } from '../vault/token-service.ts';
import type { PaymentInputCommon } from './payment-input.ts';
import type { PaymentDraft } from './payment-record.ts';
import type { ValidatedMethod } from './payment-validation.ts';

/** What a charge is paid with, once validated and resolved (a stored token is opened for the processor). */
export type Instrument =
  | {
      kind: 'card';
      number: string;
      paymentMethodTypeId: number;
      cardType: string;
      last4: string;
      expMonth: string;
      expYear: string;
      cvv?: string;
      name: string;
      /** The card as the request sent it, checked; a stored token's card is `token`. */
      checked?: CheckedCard;
      token?: StoredToken;
    }
  | { kind: 'wallet'; paymentMethodTypeId: 8 | 9; data: string; name: string }
  | {
      kind: 'bank';
      paymentMethodTypeId: typeof PaymentMethodType.ACH;
      routingNumber: string;
      accountNumber: string;
      last4: string;
      accountType: number;
      checkType: number;
      country: string;
      name: string;
      checkNumber?: string;
      checked?: CheckedBankAccount;
      token?: StoredToken;
    };

/** A broken rule of the request, naming its field in the service's words. */
export const bad = (code: (typeof Rule)[keyof typeof Rule], field: string, message: string) => new ValidationError([{ code, field, message: `{${field}} ${message}.` }]);

/** The instrument of a request that carries card, wallet or account data. */
export function sentInstrument(method: Exclude<ValidatedMethod, { kind: 'token' }>): Instrument {
  switch (method.kind) {
    case 'card':
      return {
        kind: 'card',
        number: method.card.number,
        paymentMethodTypeId: method.card.brand.paymentMethodTypeId,
        cardType: method.card.brand.cardType,
        last4: method.card.last4,
        expMonth: method.card.expMonth,
        expYear: method.card.expYear,
        cvv: method.cvv,
        name: method.name,
        checked: method.card,
      };
    case 'wallet':
      return { kind: 'wallet', paymentMethodTypeId: method.paymentMethodTypeId, data: method.data, name: method.name };
    case 'bank':
      return {
        kind: 'bank',
        paymentMethodTypeId: PaymentMethodType.ACH,
        routingNumber: method.account.routingNumber,
        accountNumber: method.account.accountNumber,
        last4: method.account.last4,
        accountType: method.accountType,
        checkType: method.checkType,
        country: method.account.country,
        name: method.name,
        checkNumber: method.checkNumber,
        checked: method.account,
      };
  }
}

/**
 * The instrument of a stored token, opened by `reveal` (its number): it must be of the kind the
 * request charges, a card not expired, and the CVV sent fit its brand.
 */
export async function tokenInstrument(
  token: StoredToken,
  reveal: () => Promise<string>,
  method: Extract<ValidatedMethod, { kind: 'token' }>,
  requested: 'card' | 'ach',
  now: Date,
): Promise<Instrument> {
  const field = 'tokenRef';
  if ((token.kind === 'card') !== (requested === 'card')) {
    throw bad(Rule.InvalidValue, field, requested === 'card' ? 'is a bank-account token, not a card' : 'is a card token, not a bank account');
  }
  const plain = await reveal();
  const holder = [token.firstName, token.lastName].filter(Boolean).join(' ');
  if (token.kind === 'card') {
    if (checkExpiry(token.expMonth, token.expYear, now).length > 0) throw bad(Rule.CardExpired, field, 'is a card that has expired');
    // The CVV's length depends on the brand, known only now: 4 digits for American Express, else 3.
    const brand = cardBrand(token.paymentMethodTypeId as CardPaymentMethodTypeId);
    const cvvProblem = checkCvv(method.cvv, brand);
    if (cvvProblem) throw bad(Rule.InvalidFormat, 'cvNum', cvvProblem.message);
    return {
      kind: 'card',
      number: plain,
      paymentMethodTypeId: token.paymentMethodTypeId,
      cardType: brand.cardType,
      last4: token.last4,
      expMonth: token.expMonth ?? '',
      expYear: token.expYear ?? '',
      cvv: method.cvv,
      name: method.name ?? holder,
      token,
    };
  }
  return {
    kind: 'bank',
    paymentMethodTypeId: PaymentMethodType.ACH,
    routingNumber: token.routingNumber ?? '',
    accountNumber: plain,
    last4: token.last4,
    accountType: token.accountType ?? 1,
    checkType: token.checkType ?? 1,
    country: token.bankCountry ?? 'US',
    name: method.name ?? token.nameOnAccount ?? holder,
    token,
  };
}

/** What the processor is asked: the attempt's amount and reference, the instrument, the payer's address. */
export function saleRequest(draft: PaymentDraft, instrument: Instrument, input: PaymentInputCommon): SaleRequest {
  const billing = { name: instrument.name, street: input.street?.trim() || undefined, zip: input.zip?.trim() || undefined };
  const base = { reference: draft.id, amountCents: draft.totalAmountCents, currency: draft.currency ?? 'USD', billing, descriptor: draft.billingDescriptor ?? undefined };
  if (instrument.kind === 'card') {
    return { ...base, card: { number: instrument.number, expMonth: instrument.expMonth, expYear: instrument.expYear, cvv: instrument.cvv, paymentMethodTypeId: instrument.paymentMethodTypeId } };
  }
  if (instrument.kind === 'wallet') return { ...base, wallet: { paymentMethodTypeId: instrument.paymentMethodTypeId, data: instrument.data } };
  return {
    ...base,
    bank: { routingNumber: instrument.routingNumber, accountNumber: instrument.accountNumber, accountType: instrument.accountType, checkType: instrument.checkType, country: instrument.country },
  };
}
