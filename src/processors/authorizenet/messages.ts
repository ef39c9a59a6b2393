import { type Cents, formatCents } from '../../domain/money.ts';
import type { BankAccountDetails, CardDetails } from '../processor.ts';
import type { ApiResponse, MerchantAuthentication } from './client.ts';

/**
 * The requests the adapter sends and the answers it reads, in Authorize.Net's JSON API shapes
 * (its XML schema's elements, in the schema's order: the API rejects elements out of order).
 * Lengths are the API reference's.
 */

/**
 * Authorize.Net refuses a sale whose card, amount and invoice number match one it took within
 * this many seconds (its longest window, 8 hours): a sale of ours sent again (our retries carry
 * the same invoice number) is never charged twice.
 */
export const DUPLICATE_WINDOW_SECONDS = 28_800;

/** The longest refId and invoiceNumber Authorize.Net takes. */
const REF_MAX = 20;

/**
 * Our reference (a GUID) as Authorize.Net's refId and invoiceNumber, which take 20 characters:
 * its first 20 letters and digits (the start of the PaymentGuid an operator searches for). The
 * whole reference travels in the order's description, which a look-up checks.
 */
export function invoiceNumberOf(reference: string): string {
  return reference.replace(/[^0-9A-Za-z]/g, '').slice(0, REF_MAX);
}

/** What the order's description says, the whole reference in it. */
export function descriptionOf(kind: 'sale' | 'refund', reference: string): string {
  return kind === 'sale' ? `PaymentGuid ${reference}` : `Refund ${reference}`;
}

/** Cut to the API's length (names and addresses are the payer's; Authorize.Net refuses longer ones). */
const fit = (text: string | undefined, max: number) => (text ? text.trim().slice(0, max) : undefined);

/** "Ada Lovelace" -> Ada / Lovelace; one word is the last name. */
export function splitName(name: string): { firstName?: string; lastName?: string } {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return {};
  const lastName = fit(words.pop(), 50);
  const firstName = fit(words.join(' '), 50);
  return { ...(firstName ? { firstName } : {}), ...(lastName ? { lastName } : {}) };
}

/** Our account type (1 checking, 2 savings) and check type (1 personal, 2 corporate, 3 government) in eCheck terms. */
export function echeckOf(bank: Pick<BankAccountDetails, 'accountType' | 'checkType'>): { accountType: 'checking' | 'savings' | 'businessChecking'; echeckType: 'WEB' | 'CCD' } {
  // A business's account is debited under CCD (a corporate entry); WEB is for a consumer's
  // account authorized on the internet, and Authorize.Net refuses it on businessChecking.
  if (bank.checkType === 2 || bank.checkType === 3) return { accountType: 'businessChecking', echeckType: 'CCD' };
  return { accountType: bank.accountType === 2 ? 'savings' : 'checking', echeckType: 'WEB' };
}

export const amountText = (cents: Cents) => formatCents(cents);

export interface SaleBodyInput {
  auth: MerchantAuthentication;
  reference: string;
  amountCents: Cents;
  currency: string;
  card?: CardDetails;
  bank?: BankAccountDetails;
  billing: { name: string; street?: string; zip?: string };
}

/** createTransactionRequest of an authCaptureTransaction: a card, or a bank account (eCheck). */
export function saleBody(input: SaleBodyInput): object {
  const payment = input.card
    ? {
        creditCard: {
          cardNumber: input.card.number,
          expirationDate: `20${input.card.expYear}-${input.card.expMonth}`,
          ...(input.card.cvv ? { cardCode: input.card.cvv } : {}),
        },
      }
    : {
        bankAccount: {
          accountType: echeckOf(input.bank!).accountType,
          routingNumber: input.bank!.routingNumber,
          accountNumber: input.bank!.accountNumber,
          nameOnAccount: fit(input.billing.name, 22),
          echeckType: echeckOf(input.bank!).echeckType,
        },
      };
  const billTo = {
    ...splitName(input.billing.name),
    ...(input.billing.street?.trim() ? { address: fit(input.billing.street, 60) } : {}),
    ...(input.billing.zip?.trim() ? { zip: fit(input.billing.zip, 20) } : {}),
  };
  return {
    merchantAuthentication: input.auth,
    refId: invoiceNumberOf(input.reference),
    transactionRequest: {
      transactionType: 'authCaptureTransaction',
      amount: amountText(input.amountCents),
      currencyCode: input.currency,
      payment,
      order: { invoiceNumber: invoiceNumberOf(input.reference), description: descriptionOf('sale', input.reference) },
      ...(Object.keys(billTo).length ? { billTo } : {}),
      transactionSettings: { setting: [{ settingName: 'duplicateWindow', settingValue: String(DUPLICATE_WINDOW_SECONDS) }] },
    },
  };
}

export function voidBody(auth: MerchantAuthentication, reference: string, transactionId: string): object {
  return {
    merchantAuthentication: auth,
    refId: invoiceNumberOf(reference),
    transactionRequest: { transactionType: 'voidTransaction', refTransId: transactionId },
  };
}

/** A refund's payment: the card's last 4 digits (the expiry masked), or the whole bank account. */
export type RefundPayment =
  | { creditCard: { cardNumber: string; expirationDate: 'XXXX' } }
  | { bankAccount: { accountType: string; routingNumber: string; accountNumber: string; nameOnAccount: string; echeckType: string } };

export function refundBody(auth: MerchantAuthentication, reference: string, amountCents: Cents, payment: RefundPayment, transactionId: string): object {
  return {
    merchantAuthentication: auth,
    refId: invoiceNumberOf(reference),
    transactionRequest: {
      transactionType: 'refundTransaction',
      amount: amountText(amountCents),
      payment,
      refTransId: transactionId,
      order: { invoiceNumber: invoiceNumberOf(reference), description: descriptionOf('refund', reference) },
      transactionSettings: { setting: [{ settingName: 'duplicateWindow', settingValue: String(DUPLICATE_WINDOW_SECONDS) }] },
    },
  };
}

/** A moment as the reporting API takes it: UTC, to the second. */
export const utcText = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

// --- Answers -------------------------------------------------------------------------------------

/** Every number of an answer arrives as its decimal text (client.ts). */
export interface TransactionResponse {
  responseCode?: string;
  authCode?: string;
  avsResultCode?: string;
  cvvResultCode?: string;
  transId?: string;
  refTransID?: string;
  accountNumber?: string;
  accountType?: string;
  messages?: unknown;
  errors?: unknown;
}

export interface CreateTransactionResponse extends ApiResponse {
  transactionResponse?: TransactionResponse;
}

export interface TransactionSummary {
  transId: string;
  submitTimeUTC?: string;
  transactionStatus: string;
  invoiceNumber?: string;
  accountType?: string;
  settleAmount?: string;
  hasReturnedItems?: boolean;
}

export interface TransactionListResponse extends ApiResponse {
  transactions?: unknown;
  totalNumInResultSet?: string;
}

export interface BatchDetails {
  batchId: string;
  settlementTimeUTC?: string;
  settlementState?: string;
  paymentMethod?: string;
}

export interface SettledBatchListResponse extends ApiResponse {
  batchList?: unknown;
}

export interface TransactionDetails {
  transId: string;
  refTransId?: string;
  submitTimeUTC?: string;
  transactionType?: string;
  transactionStatus: string;
  responseCode?: string;
  responseReasonCode?: string;
  authCode?: string;
  batch?: { batchId?: string; settlementTimeUTC?: string; settlementState?: string };
  order?: { invoiceNumber?: string; description?: string };
  authAmount?: string;
  settleAmount?: string;
  payment?: { creditCard?: { cardNumber?: string; expirationDate?: string; cardType?: string }; bankAccount?: Record<string, string> };
  returnedItems?: unknown;
}

export interface TransactionDetailsResponse extends ApiResponse {
  transaction?: TransactionDetails;
}

/**
 * A list as the JSON API writes it: an array, or (in some answers) an object holding the array
 * under the element's singular name. Nothing: an empty list.
 */
export function listOf<T>(value: unknown, singular: string): T[] {
  if (Array.isArray(value)) return value as T[];
  if (value && typeof value === 'object') {
    const inner = (value as Record<string, unknown>)[singular];
    if (Array.isArray(inner)) return inner as T[];
    if (inner && typeof inner === 'object') return [inner as T];
  }
  return [];
}

/** An amount's decimal text in cents; undefined when it is not a plain amount or has fractions of a cent. */
export function centsOf(text: string | undefined): Cents | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > 2) return undefined;
  return Number(m[1]) * 100 + Number(fraction.padEnd(2, '0'));
}
