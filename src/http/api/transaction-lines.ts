import { type Static, Type } from 'typebox';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import { TRANSACTION_SOURCE_GROUPS } from '../../domain/fee-schedule.ts';
import type { FeeLineInput } from '../../domain/fees.ts';
import { type Cents, MAX_CENTS, formatCents, parseAmount } from '../../domain/money.ts';

/**
 * The spec's transaction line, shared by the card payment, the ACH payment and the fee
 * calculation: its wire schema, and the reading of wire lines into the fee engine's line inputs.
 *
 * Required: TransactionSourceGroupId and Amount (no fee can be worked out without them). PayFee
 * is optional and false when omitted; the rest is optional (docs/decisions.md, "Fees").
 * Amounts and rates are strings on the wire; the schema only asks for strings, and
 * readTransactionLine checks their form so that every caller gives the same messages.
 */
/** Lines one request may carry. */
export const MAX_TRANSACTION_LINES = 100;
const EXTERNAL_LINE_ID_MAX = 200;
const AMOUNT_MAX_CHARS = 20;
const RATE = /^-?\d{1,10}(?:\.\d+)?$/;
const RATE_MAX_DECIMALS = 4;

export const TransactionLine = Type.Object(
  {
    TransactionSourceGroupId: Type.String({
      description: 'Fee category, 1-12 (see the spec table); a for-profit partner uses 12, a non-profit partner 1-11.',
      examples: ['1'],
    }),
    Amount: Type.String({ description: 'Line amount: digits with at most 2 decimals, greater than 0, at most 9999999999.99.', examples: ['100.00'] }),
    PayFee: Type.Optional(Type.Boolean({ description: 'The payer covers the fees (default false).' })),
    CommissionRateOverride: Type.Optional(
      Type.String({
        description:
          'Total commission percentage wanted (at most 4 decimals). Clamped into [platform rate, maximum rate] of the contract; omitted means the maximum.',
      }),
    ),
    CardProcessingFeeOverride: Type.Optional(
      Type.String({ description: 'Card processing fee percentage replacing the contract card rate, 0 <= x < 100, at most 4 decimals. Not used for ACH.' }),
    ),
    ExternalLineId: Type.Optional(Type.String({ maxLength: EXTERNAL_LINE_ID_MAX, description: "Caller's line reference." })),
    Tip: Type.Optional(Type.String({ description: 'Amount for the API partner, added to the total charged; fees include it.' })),
    Tax: Type.Optional(Type.String({ description: 'Tax amount, added to the total charged; fees include it.' })),
  },
  { title: 'TransactionLine' },
);

export type TransactionLineWire = Static<typeof TransactionLine>;

/**
 * Reads a wire amount into cents, or a violation that names the field. `positive`: 0 is refused
 * (line amounts); otherwise 0 is allowed (tip, tax).
 */
export function readAmount(raw: string, field: string, positive: boolean): Cents | RuleViolation {
  const text = raw.trim();
  if (text === '') return { code: Rule.Required, field, message: `'${field}' is required.` };
  if (text.length > AMOUNT_MAX_CHARS) {
    return { code: Rule.MaxLength, field, message: `'${field}' must be at most ${AMOUNT_MAX_CHARS} characters.` };
  }
  const cents = parseAmount(text);
  if (cents !== undefined) {
    if (positive && cents === 0) return { code: Rule.OutOfRange, field, message: `'${field}' must be greater than 0.` };
    return cents;
  }
  if (/^-\d+(\.\d+)?$/.test(text)) return { code: Rule.OutOfRange, field, message: `'${field}' must not be negative.` };
  if (/^\d+\.\d{3,}$/.test(text)) return { code: Rule.InvalidFormat, field, message: `'${field}' must have at most 2 decimals.` };
  if (/^\d+(\.\d{1,2})?$/.test(text)) {
    return { code: Rule.OutOfRange, field, message: `'${field}' must be at most ${formatCents(MAX_CENTS)}.` };
  }
  return { code: Rule.InvalidFormat, field, message: `'${field}' must be an amount such as 100.00 (digits, at most 2 decimals).` };
}

/** Reads a percentage ("2.5"): decimal text with at most 4 decimals, returned trimmed. */
function readRate(raw: string, field: string): string | RuleViolation {
  const text = raw.trim();
  if (!RATE.test(text)) return { code: Rule.InvalidFormat, field, message: `'${field}' must be a percentage such as 2.5.` };
  const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
  if (decimals > RATE_MAX_DECIMALS) {
    return { code: Rule.InvalidFormat, field, message: `'${field}' must have at most ${RATE_MAX_DECIMALS} decimals.` };
  }
  return text;
}

/** CommissionRateOverride: any percentage; out of [platform, max] it is clamped to the nearest bound (spec). */
export function readCommissionRateOverride(raw: string, field: string): string | RuleViolation {
  return readRate(raw, field);
}

/** CardProcessingFeeOverride: a percentage from 0 to below 100 (wherever it is sent: lines, profiles). */
export function readCardProcessingFeeOverride(raw: string, field: string): string | RuleViolation {
  const rate = readRate(raw, field);
  if (isViolation(rate)) return rate;
  if (rate.startsWith('-') || Number(rate.split('.')[0]) >= 100) {
    return { code: Rule.OutOfRange, field, message: `'${field}' must be at least 0 and below 100.` };
  }
  return rate;
}

export const isViolation = (v: unknown): v is RuleViolation => typeof v === 'object' && v !== null;

/** The line fields as the fee engine reads them; `fieldOf` gives the wire name of a field for messages. */
export function readTransactionLine(
  wire: TransactionLineWire,
  fieldOf: (name: keyof TransactionLineWire) => string,
): { line: FeeLineInput; violations: [] } | { line: undefined; violations: RuleViolation[] } {
  const violations: RuleViolation[] = [];

  // A route that reports schema and business rules together reads lines that failed the schema
  // too (payments): a missing required field reads as empty here, the schema's rule names it.
  const groupText = (wire.TransactionSourceGroupId ?? '').trim();
  const groupId = /^\d{1,2}$/.test(groupText) ? Number(groupText) : NaN;
  if (!Object.hasOwn(TRANSACTION_SOURCE_GROUPS, groupId)) {
    const field = fieldOf('TransactionSourceGroupId');
    violations.push({ code: Rule.InvalidValue, field, message: `'${field}' must be a TransactionSourceGroupId from 1 to 12.` });
  }

  const amount = readAmount(wire.Amount ?? '', fieldOf('Amount'), true);
  if (isViolation(amount)) violations.push(amount);
  const optionalAmount = (raw: string | undefined, name: 'Tip' | 'Tax'): Cents => {
    if (raw === undefined || raw.trim() === '') return 0;
    const cents = readAmount(raw, fieldOf(name), false);
    if (!isViolation(cents)) return cents;
    violations.push(cents);
    return 0;
  };
  const tip = optionalAmount(wire.Tip, 'Tip');
  const tax = optionalAmount(wire.Tax, 'Tax');

  let commissionRateOverride: string | undefined;
  if (wire.CommissionRateOverride !== undefined && wire.CommissionRateOverride.trim() !== '') {
    const rate = readCommissionRateOverride(wire.CommissionRateOverride, fieldOf('CommissionRateOverride'));
    if (isViolation(rate)) violations.push(rate);
    else commissionRateOverride = rate;
  }
  let cardProcessingFeeOverride: string | undefined;
  if (wire.CardProcessingFeeOverride !== undefined && wire.CardProcessingFeeOverride.trim() !== '') {
    const rate = readCardProcessingFeeOverride(wire.CardProcessingFeeOverride, fieldOf('CardProcessingFeeOverride'));
    if (isViolation(rate)) violations.push(rate);
    else cardProcessingFeeOverride = rate;
  }

  if (violations.length > 0 || isViolation(amount)) return { line: undefined, violations };
  return {
    line: {
      transactionSourceGroupId: groupId,
      amountCents: amount,
      payFee: wire.PayFee ?? false,
      commissionRateOverride,
      cardProcessingFeeOverride,
      tipCents: tip,
      taxCents: tax,
      externalLineId: wire.ExternalLineId,
    },
    violations: [],
  };
}

/**
 * Reads the `Transactions` array of a request body. Field paths in violations are
 * `<listName>[i].<Field>`.
 */
export function readTransactionLines(
  wires: readonly TransactionLineWire[],
  listName = 'Transactions',
): { lines: FeeLineInput[]; violations: RuleViolation[] } {
  const lines: FeeLineInput[] = [];
  const violations: RuleViolation[] = [];
  wires.forEach((wire, i) => {
    const read = readTransactionLine(wire, (name) => `${listName}[${i}].${name}`);
    if (read.line) lines.push(read.line);
    else violations.push(...read.violations);
  });
  return { lines, violations };
}
