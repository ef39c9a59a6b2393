import { PAYMENT_METHOD_TYPE_NAMES, PaymentResult, ProcessStatus } from '../../domain/payment-status.ts';

/**
 * The transaction report's row, field by field: the names partners filter and sort by (the
 * original API's names), each field's type (which decides the operations and values it takes)
 * and whether an index serves it. docs/decisions.md, "Transaction reports", lists them.
 */

/** One payment as the report shows it: money in cents, instants in ISO 8601 UTC (2026-11-21T17:30:00.000Z), days as yyyy-MM-dd. */
export interface ReportRow {
  paymentId: number;
  paymentGuid: string;
  paymentDate: string;
  processedDate: string | null;
  tranId: string | null;
  paymentExternalId: string | null;
  authCode: string | null;
  paymentMethod: 'card' | 'ach' | 'wallet';
  paymentMethodTypeId: number | null;
  cardType: string | null;
  cardLastFour: string | null;
  checkAccountLastFour: string | null;
  currency: string | null;
  amountCents: number;
  tipCents: number;
  taxCents: number;
  shippingFeeCents: number | null;
  surchargeCents: number | null;
  totalAmountCents: number;
  totalFeesCents: number;
  totalCommissionCents: number;
  partnerCommissionCents: number;
  platformCommissionCents: number;
  netAmountCents: number;
  processStatus: number;
  paymentResult: number;
  responseCode: string;
  responseMessage: string | null;
  settlementDate: string | null;
  settlementBatch: number | null;
  refundedAmountCents: number | null;
  refundedDate: string | null;
  voidedAmountCents: number | null;
  voidedDate: string | null;
  processorGuid: string;
  integrationSourceGuid: string | null;
  integrationSourceName: string | null;
  organizationGuid: string | null;
  organizationName: string | null;
  charityId: string | null;
  charityName: string | null;
  recurringProfileGuid: string | null;
  recurringProfileId: number | null;
  billDate: string | null;
  payLinkId: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  externalConstituentId: string | null;
}

export type ReportFieldKey = keyof ReportRow;

/**
 * integer: whole numbers; amount: money with up to two decimals (compared in cents); datetime: an
 * instant, filtered by whole days of UTC (values yyyy-MM-dd); date: a calendar day; text; guid;
 * enum: a closed set of values, given by number or name.
 */
export type FieldType = 'integer' | 'amount' | 'datetime' | 'date' | 'text' | 'guid' | 'enum';

/** A closed set of stored values, each with its display name. */
export interface FieldEnum {
  /** Lower-case name (and, for numbered values, the number as text) -> stored value. */
  byName: ReadonlyMap<string, number | string>;
  nameOf(value: number | string): string;
  /** Every stored value with its name. */
  entries: readonly (readonly [number | string, string])[];
}

export interface ReportField {
  /** The name in Filters, SortColumns, the JSON row and the export's header. */
  name: string;
  key: ReportFieldKey;
  type: FieldType;
  nullable: boolean;
  /** enum fields: their values. */
  enum?: FieldEnum;
  /** enum fields: the row shows the value's display name rather than its number. */
  showsName?: boolean;
  /** Filters on it (equality, ranges) and a sort by it use an index (within the partner's payments). */
  indexed: boolean;
  description: string;
}

function fieldEnum(names: Readonly<Record<string, number | string>>): FieldEnum {
  const byName = new Map<string, number | string>();
  const nameOf = new Map<number | string, string>();
  for (const [name, value] of Object.entries(names)) {
    byName.set(name.toLowerCase(), value);
    if (typeof value === 'number') byName.set(String(value), value);
    nameOf.set(value, name);
  }
  return { byName, nameOf: (value) => nameOf.get(value) ?? String(value), entries: [...nameOf.entries()] };
}

const PROCESS_STATUS = fieldEnum(ProcessStatus);
const PAYMENT_RESULT = fieldEnum(PaymentResult);
const PAYMENT_METHOD = fieldEnum({ Card: 'card', ACH: 'ach', Wallet: 'wallet' });
const PAYMENT_METHOD_TYPE = fieldEnum(Object.fromEntries(Object.entries(PAYMENT_METHOD_TYPE_NAMES).map(([id, name]) => [name, Number(id)])));

interface FieldOptions {
  nullable?: boolean;
  indexed?: boolean;
  enum?: FieldEnum;
  showsName?: boolean;
}

const f = (name: string, key: ReportFieldKey, type: FieldType, description: string, options: FieldOptions = {}): ReportField => ({
  name,
  key,
  type,
  nullable: options.nullable ?? false,
  indexed: options.indexed ?? false,
  description,
  ...(options.enum ? { enum: options.enum } : {}),
  ...(options.showsName ? { showsName: true } : {}),
});
const NULLABLE = { nullable: true } as const;
const INDEXED = { indexed: true } as const;
const NULLABLE_INDEXED = { nullable: true, indexed: true } as const;

/** Every field of the row, in the order of the export's columns. */
export const REPORT_FIELDS: readonly ReportField[] = [
  f('PaymentId', 'paymentId', 'integer', "The payment's number.", INDEXED),
  f('PaymentGuid', 'paymentGuid', 'guid', "The payment's GUID.", INDEXED),
  f('PaymentDate', 'paymentDate', 'datetime', 'When the payment was made (UTC).', INDEXED),
  f('ProcessedDate', 'processedDate', 'datetime', 'When the processor answered (UTC).', NULLABLE),
  f('TranId', 'tranId', 'text', "The partner's TranId.", NULLABLE_INDEXED),
  f('PaymentExternalId', 'paymentExternalId', 'text', 'The gateway transaction id (TransactionId of the payment response).', NULLABLE_INDEXED),
  f('AuthCode', 'authCode', 'text', 'The authorization code.', NULLABLE),
  f('PaymentMethod', 'paymentMethod', 'enum', 'Card, ACH or Wallet.', { enum: PAYMENT_METHOD, showsName: true }),
  f('PaymentMethodTypeId', 'paymentMethodTypeId', 'enum', '1 AMEX, 2 MASTERCARD, 3 VISA, 4 DISCOVER, 5 DINERSCLUB, 6 JCB, 7 ACH, 8 WALLET_A, 9 WALLET_B, 10 GATEWAY_X.', { nullable: true, enum: PAYMENT_METHOD_TYPE }),
  f('PaymentMethodType', 'paymentMethodTypeId', 'enum', 'The name of PaymentMethodTypeId (VISA, ACH ...).', { nullable: true, enum: PAYMENT_METHOD_TYPE, showsName: true }),
  f('CardType', 'cardType', 'text', 'The card brand.', NULLABLE),
  f('CardLastFour', 'cardLastFour', 'text', 'The last 4 digits of the card (never more).', NULLABLE),
  f('CheckAccountLastFour', 'checkAccountLastFour', 'text', 'The last 4 digits of the bank account (never more).', NULLABLE),
  f('Currency', 'currency', 'text', 'ISO 4217 currency code.', NULLABLE),
  f('Amount', 'amountCents', 'amount', "The lines' amounts, before tips, taxes and fees."),
  f('TipAmount', 'tipCents', 'amount', "The lines' tips."),
  f('TaxAmount', 'taxCents', 'amount', "The lines' taxes."),
  f('ShippingFee', 'shippingFeeCents', 'amount', 'The shipping fee charged.', NULLABLE),
  f('Surcharge', 'surchargeCents', 'amount', 'The surcharge charged.', NULLABLE),
  f('TotalAmount', 'totalAmountCents', 'amount', 'What the payer was charged.', INDEXED),
  f('TotalFees', 'totalFeesCents', 'amount', "Every fee and commission of the lines (TotalFees of the lines' fee breakdowns)."),
  f('TotalCommission', 'totalCommissionCents', 'amount', 'Partner and platform commissions.'),
  f('PartnerCommission', 'partnerCommissionCents', 'amount', "The partner's commission."),
  f('PlatformCommission', 'platformCommissionCents', 'amount', "The platform's commission."),
  f('NetAmount', 'netAmountCents', 'amount', 'TotalAmount less TotalFees.'),
  f('ProcessStatus', 'processStatus', 'enum', '1 NotProcessed, 2 Authorized, 4 Settled, 5 Rejected, 6 RefundRequired, 7 AwaitingRefund, 8 Refunded, 9 Cancelled, 10 Chargeback, 11 RefundRejected.', { indexed: true, enum: PROCESS_STATUS }),
  f('ProcessStatusName', 'processStatus', 'enum', 'The name of ProcessStatus.', { indexed: true, enum: PROCESS_STATUS, showsName: true }),
  f('PaymentResult', 'paymentResult', 'enum', '1 Pending, 2 Processing, 3 Successful, 4 Failed, 5 Refunded, 6 Cancelled.', { indexed: true, enum: PAYMENT_RESULT }),
  f('PaymentResultName', 'paymentResult', 'enum', 'The name of PaymentResult.', { indexed: true, enum: PAYMENT_RESULT, showsName: true }),
  f('ResponseCode', 'responseCode', 'text', "The gateway's response code (0 approved)."),
  f('ResponseMessage', 'responseMessage', 'text', 'The response message.', NULLABLE),
  f('SettlementDate', 'settlementDate', 'datetime', 'When the payment settled (UTC).', NULLABLE_INDEXED),
  f('SettlementBatch', 'settlementBatch', 'integer', 'The number of its settlement batch.', NULLABLE_INDEXED),
  f('RefundedAmount', 'refundedAmountCents', 'amount', 'The amount refunded.', NULLABLE),
  f('RefundedDate', 'refundedDate', 'datetime', 'When the refund was approved (UTC).', NULLABLE_INDEXED),
  f('VoidedAmount', 'voidedAmountCents', 'amount', 'The amount voided.', NULLABLE),
  f('VoidedDate', 'voidedDate', 'datetime', 'When the void was approved (UTC).', NULLABLE_INDEXED),
  f('ProcessorGuid', 'processorGuid', 'guid', 'The processor that charged it.'),
  f('IntegrationSourceGuid', 'integrationSourceGuid', 'guid', 'The integration source.', NULLABLE_INDEXED),
  f('IntegrationSourceName', 'integrationSourceName', 'text', "The integration source's name.", NULLABLE),
  f('OrganizationGuid', 'organizationGuid', 'guid', 'The organization (non-profit) the funds went to.', NULLABLE_INDEXED),
  f('OrganizationName', 'organizationName', 'text', "The organization's name.", NULLABLE),
  f('CharityId', 'charityId', 'guid', 'The charity of the directory.', NULLABLE),
  f('CharityName', 'charityName', 'text', "The charity's name in the directory.", NULLABLE),
  f('RecurringProfileGuid', 'recurringProfileGuid', 'guid', 'The recurring profile that made it.', NULLABLE_INDEXED),
  f('RecurringProfileId', 'recurringProfileId', 'integer', "The recurring profile's number.", NULLABLE_INDEXED),
  f('BillDate', 'billDate', 'date', 'The bill date the recurring charge was for.', NULLABLE),
  f('PayLinkId', 'payLinkId', 'text', 'The pay link whose page took it.', NULLABLE_INDEXED),
  f('FirstName', 'firstName', 'text', "The payer's first name.", NULLABLE),
  f('LastName', 'lastName', 'text', "The payer's last name.", NULLABLE),
  f('EmailAddress', 'email', 'text', "The payer's email address.", NULLABLE),
  f('ExternalConstituentId', 'externalConstituentId', 'text', "The donor's id in the partner's product.", NULLABLE_INDEXED),
];

/** A field's value in a row as the report shows it: an enum's name where the field shows names. */
export function shownValue(field: ReportField, row: ReportRow): ReportRow[ReportFieldKey] | string {
  const value = row[field.key];
  return field.showsName && value !== null && field.enum ? field.enum.nameOf(value as number | string) : value;
}

const FIELDS_BY_NAME = new Map(REPORT_FIELDS.map((field) => [field.name.toLowerCase(), field]));

/** The field of a name, matched case-insensitively (as the API binds every name). */
export function reportField(name: string): ReportField | undefined {
  return FIELDS_BY_NAME.get(name.trim().toLowerCase());
}

export const PAYMENT_DATE_FIELD = reportField('PaymentDate')!;
export const PAYMENT_ID_FIELD = reportField('PaymentId')!;
