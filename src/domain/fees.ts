import type { FeeSchedule } from './fee-schedule.ts';
import {
  type Percent,
  WHOLE,
  ceilDiv,
  clampPercent,
  formatPercent,
  parsePercent,
  percentOf,
  percentOfBig,
} from './fee-rates.ts';
import { type Cents, MAX_CENTS } from './money.ts';

/**
 * The fee and commission rules (docs/fees.md): a pure function from a partner's fee schedules,
 * transaction lines and the payment method to one fee breakdown per line. No I/O; payments,
 * recurring billing, pay links and the fee endpoints all call it.
 */

/** PaymentMethodTypeId of ACH; every other value (or none) is a card payment. */
export const ACH_PAYMENT_METHOD_TYPE = 7;

/** One transaction line, already validated by the edge (amounts in cents, rates as decimal text). */
export interface FeeLineInput {
  transactionSourceGroupId: number;
  amountCents: Cents;
  /** The payer covers the fees. */
  payFee: boolean;
  /** Percentage text; undefined means the schedule's maximum. Clamped into [platform, max]. */
  commissionRateOverride?: string;
  /** Percentage text, 0 <= x < 100; replaces the card fee rate of card payments. */
  cardProcessingFeeOverride?: string;
  tipCents: Cents;
  taxCents: Cents;
  /** The caller's reference, carried through for the caller. */
  externalLineId?: string;
}

/** The fee breakdown of one line; rates are percentage text ("2.9" is 2.9 %), amounts cents. */
export interface FeeBreakdown {
  transactionSourceGroupId: number;
  paymentAmountCents: Cents;
  cardFeeRate: string;
  cardFeeAmountCents: Cents;
  cardTypeFeeAmountCents: Cents;
  totalCommissionRate: string;
  totalCommissionAmountCents: Cents;
  partnerCommissionRate: string;
  partnerCommissionAmountCents: Cents;
  platformCommissionRate: string;
  platformCommissionAmountCents: Cents;
  totalFeesCents: Cents;
  maxOverridePartnerCommissionRate: string;
  minOverridePartnerCommissionRate: string;
  perTransFeeCents: Cents;
  tipCents: Cents;
  cardFeeOnFeeAmountCents: Cents;
  taxCents: Cents;
  achFeeRate: string;
  achFeeAmountCents: Cents;
  externalLineId: string | undefined;
}

export interface FeeQuoteInput {
  lines: readonly FeeLineInput[];
  /**
   * The schedule of every group the lines use. Schedules are values: what the engine works out
   * from a schedule object is kept with it, so change a contract by passing a new object.
   */
  schedules: ReadonlyMap<number, FeeSchedule>;
  /** 1-6: the card brand (decides the card-type fee); 7: ACH; undefined: a card of unknown brand. */
  paymentMethodTypeId?: number;
}

export interface FeeQuote {
  lines: FeeBreakdown[];
  totalPaymentCents: Cents;
  totalFeesCents: Cents;
  totalTaxCents: Cents;
  totalTipCents: Cents;
}

/**
 * The calculation cannot give a usable answer (an amount beyond the largest the service handles).
 * Input is validated before; this is the spec's "exception during the fee calculation".
 */
export class FeeCalculationError extends Error {
  readonly lineIndex: number;
  constructor(lineIndex: number, message: string) {
    super(message);
    this.name = 'FeeCalculationError';
    this.lineIndex = lineIndex;
  }
}

/** The rates that follow from one processing rate: the spec's derived override bounds. */
interface ProcessingRate extends Rate {
  /** (max - platform) + rate + platform */
  maxOverrideText: string;
  /** rate + platform */
  minOverrideText: string;
}

/** What a schedule means, worked out once (rates as exact units, their display text). */
interface CompiledSchedule {
  source: FeeSchedule;
  card: ProcessingRate;
  ach: ProcessingRate;
  platform: Rate;
  max: Rate;
  /** max - platform: the partner's share when no override is sent. */
  partnerAtMaxText: string;
  achCap: bigint | null;
  /** Card fee overrides seen with this schedule, with their derived rates. */
  cardOverrides: Map<Percent, ProcessingRate>;
}

function processingRate(rate: Rate, platform: Percent, max: Percent): ProcessingRate {
  return {
    ...rate,
    maxOverrideText: textOf(max - platform + rate.units + platform),
    minOverrideText: textOf(rate.units + platform),
  };
}

const compiled = new WeakMap<FeeSchedule, CompiledSchedule>();

/** A rate and its display text. */
interface Rate {
  units: Percent;
  text: string;
}

/**
 * Rate texts seen recently ("2.9", an override "3.5"), parsed: contracts and overrides repeat a
 * handful of values, and parsing is most of the cost of a quote otherwise. Bounded.
 */
const rates = new Map<string, Rate | null>();
const RATES_KEPT = 4_096;

function rateOf(text: string): Rate | undefined {
  let r = rates.get(text);
  if (r === undefined) {
    const units = parsePercent(text);
    r = units === undefined ? null : { units, text: formatPercent(units) };
    if (rates.size >= RATES_KEPT) rates.clear();
    rates.set(text, r);
  }
  return r ?? undefined;
}

/** Display text of computed rates (a clamped override, its partner share), by value. Bounded. */
const texts = new Map<Percent, string>();

function textOf(units: Percent): string {
  let t = texts.get(units);
  if (t === undefined) {
    t = formatPercent(units);
    if (texts.size >= RATES_KEPT) texts.clear();
    texts.set(units, t);
  }
  return t;
}

function scheduleRate(s: FeeSchedule, name: string, text: string): Rate {
  const rate = rateOf(text);
  if (rate === undefined || rate.units < 0n || rate.units >= WHOLE) {
    throw new Error(`fee schedule of group ${s.groupId}: ${name} "${text}" is not a percentage from 0 to below 100`);
  }
  return rate;
}

/** Parses a schedule once; the result is kept as long as the schedule object lives. */
function compile(s: FeeSchedule): CompiledSchedule {
  let c = compiled.get(s);
  if (c) return c;
  const card = scheduleRate(s, 'card fee rate', s.cardFeeRate);
  const platform = scheduleRate(s, 'platform commission rate', s.platformCommissionRate);
  const max = scheduleRate(s, 'maximum commission rate', s.maxCommissionRate);
  const ach = scheduleRate(s, 'ACH fee rate', s.achFeeRate);
  if (platform.units > max.units) throw new Error(`fee schedule of group ${s.groupId}: platform commission rate exceeds the maximum`);
  c = {
    source: s,
    card: processingRate(card, platform.units, max.units),
    ach: processingRate(ach, platform.units, max.units),
    platform,
    max,
    partnerAtMaxText: textOf(max.units - platform.units),
    achCap: s.achFeeCapCents === null ? null : BigInt(s.achFeeCapCents),
    cardOverrides: new Map(),
  };
  compiled.set(s, c);
  return c;
}

/**
 * The smallest amount P (cents) with `P - processing(P) >= net`, where processing(P) is
 * `round(P * rate)`, capped at `cap` when there is one. Starts from the closed form
 * `ceil(net / (1 - rate))` and corrects for rounding; all in exact integers.
 */
export function grossUp(net: bigint, rate: Percent, cap: bigint | null): bigint {
  const uncapped = grossUpUncapped(net, rate);
  // P - min(fee(P), cap) >= net holds when P - fee(P) >= net or when P - cap >= net.
  return cap !== null && net + cap < uncapped ? net + cap : uncapped;
}

function grossUpUncapped(net: bigint, rate: Percent): bigint {
  if (rate === 0n || net === 0n) return net;
  const keeps = WHOLE - rate;
  const nets = (p: bigint) => p - percentOfBig(p, rate) >= net;
  const closed = ceilDiv(net * WHOLE, keeps);
  if (nets(closed) && !nets(closed - 1n)) return closed;
  // Rounding moves the answer by at most half a cent of fee, so it lies within these bounds
  // (one or two cents apart for ordinary rates; wider only as the rate nears 100 %).
  let lo = ceilDiv((2n * net - 1n) * WHOLE, 2n * keeps);
  let hi = ceilDiv((2n * net + 1n) * WHOLE, 2n * keeps);
  if (lo < net) lo = net;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (nets(mid)) hi = mid;
    else lo = mid + 1n;
  }
  return lo;
}

const MAX_BIG = BigInt(MAX_CENTS);

/**
 * The breakdown of one line. `chargesFlatFees` is true for the one line of a payment that carries
 * the once-per-payment flat fees (the per-transaction fee and the card-type fee): the first.
 */
export function quoteLine(
  schedule: FeeSchedule,
  line: FeeLineInput,
  options: { paymentMethodTypeId?: number; chargesFlatFees: boolean; lineIndex?: number },
): FeeBreakdown {
  const s = compile(schedule);
  const isAch = options.paymentMethodTypeId === ACH_PAYMENT_METHOD_TYPE;
  const base = line.amountCents + line.tipCents + line.taxCents;

  // Processing rate: the card rate (or the line's override) for cards, the ACH rate for ACH.
  let processing: ProcessingRate;
  if (isAch) {
    processing = s.ach;
  } else if (line.cardProcessingFeeOverride !== undefined) {
    const override = parseLineRate(line.cardProcessingFeeOverride, 'CardProcessingFeeOverride', options.lineIndex);
    if (override.units < 0n || override.units >= WHOLE) {
      throw new FeeCalculationError(options.lineIndex ?? 0, 'CardProcessingFeeOverride must be at least 0 and below 100.');
    }
    let known = s.cardOverrides.get(override.units);
    if (!known) {
      known = processingRate(override, s.platform.units, s.max.units);
      if (s.cardOverrides.size < 64) s.cardOverrides.set(override.units, known);
    }
    processing = known;
  } else {
    processing = s.card;
  }
  const rate = processing.units;

  // Commission: the override clamped into [platform, max]; none means the maximum.
  const platform = s.platform.units;
  let total = s.max.units;
  let totalText = s.max.text;
  let partnerText = s.partnerAtMaxText;
  if (line.commissionRateOverride !== undefined) {
    total = clampPercent(parseLineRate(line.commissionRateOverride, 'CommissionRateOverride', options.lineIndex).units, platform, total);
    if (total !== s.max.units) {
      totalText = textOf(total);
      partnerText = textOf(total - platform);
    }
  }
  const platformAmount = percentOf(base, platform);
  const partnerAmount = percentOf(base, total - platform);
  const commission = platformAmount + partnerAmount;

  const perTransFee = options.chargesFlatFees ? s.source.perTransFeeCents : 0;
  const cardTypeFee =
    options.chargesFlatFees && !isAch && options.paymentMethodTypeId !== undefined
      ? (s.source.cardTypeFeesCents[options.paymentMethodTypeId] ?? 0)
      : 0;
  const flat = perTransFee + cardTypeFee;

  let payment: Cents;
  let cardFee = 0;
  let cardFeeOnFee = 0;
  let achFee = 0;
  if (!line.payFee) {
    payment = base;
    if (isAch) achFee = capped(percentOf(base, rate), s.achCap);
    else cardFee = percentOf(base, rate);
  } else {
    // The payer covers the fees: the smallest P whose net after fees still pays Amount + Tax
    // (and the tip, which goes to the partner).
    const net = BigInt(base + commission + flat);
    const gross = grossUp(net, rate, isAch ? s.achCap : null);
    if (gross > MAX_BIG) {
      throw new FeeCalculationError(
        options.lineIndex ?? 0,
        'The amount that covers the fees would exceed 9999999999.99, the largest amount the service handles.',
      );
    }
    payment = Number(gross);
    if (isAch) {
      achFee = capped(percentOf(payment, rate), s.achCap);
    } else {
      cardFee = percentOf(base, rate);
      cardFeeOnFee = percentOf(payment, rate) - cardFee;
    }
  }
  if (payment > MAX_CENTS) {
    throw new FeeCalculationError(options.lineIndex ?? 0, 'The line total (Amount + Tip + Tax) exceeds 9999999999.99, the largest amount the service handles.');
  }

  return {
    transactionSourceGroupId: line.transactionSourceGroupId,
    paymentAmountCents: payment,
    cardFeeRate: isAch ? '0' : processing.text,
    cardFeeAmountCents: cardFee,
    cardTypeFeeAmountCents: cardTypeFee,
    totalCommissionRate: totalText,
    totalCommissionAmountCents: commission,
    partnerCommissionRate: partnerText,
    partnerCommissionAmountCents: partnerAmount,
    platformCommissionRate: s.platform.text,
    platformCommissionAmountCents: platformAmount,
    totalFeesCents: commission + cardFee + achFee + perTransFee + cardTypeFee + cardFeeOnFee,
    // As the spec defines them: partner share (at the maximum) + processing rate + platform rate.
    maxOverridePartnerCommissionRate: processing.maxOverrideText,
    minOverridePartnerCommissionRate: processing.minOverrideText,
    perTransFeeCents: perTransFee,
    tipCents: line.tipCents,
    cardFeeOnFeeAmountCents: cardFeeOnFee,
    taxCents: line.taxCents,
    achFeeRate: isAch ? s.ach.text : '0',
    achFeeAmountCents: achFee,
    externalLineId: line.externalLineId,
  };
}

function capped(fee: Cents, cap: bigint | null): Cents {
  return cap !== null && fee > Number(cap) ? Number(cap) : fee;
}

function parseLineRate(text: string, field: string, lineIndex = 0): Rate {
  const rate = rateOf(text);
  // The edge validates these; a caller that did not gets an error, never a guess.
  if (rate === undefined) throw new FeeCalculationError(lineIndex, `${field} "${text}" is not a percentage.`);
  return rate;
}

/**
 * Quotes every line of a payment. The once-per-payment flat fees go on the first line; every
 * other amount of a line depends on that line alone.
 */
export function quoteFees(input: FeeQuoteInput): FeeQuote {
  const lines: FeeBreakdown[] = [];
  let totalPaymentCents = 0;
  let totalFeesCents = 0;
  let totalTaxCents = 0;
  let totalTipCents = 0;
  for (let i = 0; i < input.lines.length; i++) {
    const line = input.lines[i]!;
    const schedule = input.schedules.get(line.transactionSourceGroupId);
    if (!schedule) throw new Error(`no fee schedule given for group ${line.transactionSourceGroupId}`);
    const b = quoteLine(schedule, line, { paymentMethodTypeId: input.paymentMethodTypeId, chargesFlatFees: i === 0, lineIndex: i });
    lines.push(b);
    totalPaymentCents += b.paymentAmountCents;
    totalFeesCents += b.totalFeesCents;
    totalTaxCents += b.taxCents;
    totalTipCents += b.tipCents;
  }
  return { lines, totalPaymentCents, totalFeesCents, totalTaxCents, totalTipCents };
}
