import { TRANSACTION_SOURCE_GROUPS, type FeeSchedule } from '../../domain/fee-schedule.ts';
import { formatCents, parseAmount, parseRate } from '../../domain/money.ts';
import { type Command, type CommandOption, UsageError, requiredPositional, requiredString } from '../command.ts';

/** Card brands by their PaymentMethodTypeId, for --card-type-fee AMEX=0.10. */
const BRANDS: Record<string, string> = { AMEX: '1', MASTERCARD: '2', VISA: '3', DISCOVER: '4', DINERSCLUB: '5', JCB: '6' };
const BRAND_NAMES = Object.fromEntries(Object.entries(BRANDS).map(([k, v]) => [v, k]));
const ACH_RATE_DEFAULT = '0';
const GROUP_OPTION: CommandOption = { type: 'string', value: '<1-12>', description: 'the TransactionSourceGroupId of the schedule', required: true };

function rate(values: Record<string, unknown>, name: string, usage: string, fallback?: string): string {
  const raw = values[name];
  if (raw === undefined && fallback !== undefined) return fallback;
  const text = requiredString(values, name, usage);
  const parsed = parseRate(text);
  if (parsed === undefined) throw new UsageError(`--${name} must be a percentage from 0 to below 100 with at most 4 decimals, got "${text}"`);
  return parsed;
}

function groupArg(values: Record<string, unknown>, usage: string): string {
  const groupText = requiredString(values, 'group', usage);
  if (!/^\d{1,2}$/.test(groupText) || !(Number(groupText) in TRANSACTION_SOURCE_GROUPS)) {
    throw new UsageError(`--group must be a TransactionSourceGroupId from 1 to 12, got "${groupText}"`);
  }
  return groupText;
}

function amount(text: string, what: string): number {
  const cents = parseAmount(text);
  if (cents === undefined) throw new UsageError(`${what} must be an amount like 0.30, got "${text}"`);
  return cents;
}

export function describeSchedule(s: FeeSchedule): string {
  const typeFees = Object.entries(s.cardTypeFeesCents).map(([t, c]) => `${BRAND_NAMES[t] ?? t}=${formatCents(c)}`);
  return [
    `group ${s.groupId} (${TRANSACTION_SOURCE_GROUPS[s.groupId]}):`,
    `card ${s.cardFeeRate}%`,
    `platform ${s.platformCommissionRate}%`,
    `max commission ${s.maxCommissionRate}%`,
    `per transaction ${formatCents(s.perTransFeeCents)}`,
    `ACH ${s.achFeeRate}%${s.achFeeCapCents === null ? '' : ` capped at ${formatCents(s.achFeeCapCents)}`}`,
    typeFees.length ? `card type fees ${typeFees.join(' ')}` : '',
  ]
    .filter(Boolean)
    .join('  ');
}

export const contractCommands: Command[] = [
  {
    name: 'contract show',
    summary: "show a partner's fee schedules",
    usage: 'contract show <clientId>',
    async run(ctx, { positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const { partners } = await ctx.services();
      const partner = await partners.getPartner(id);
      const contract = await partners.getContract(partner.clientId);
      if (ctx.json) return ctx.out(JSON.stringify(contract));
      if (contract.length === 0) return ctx.out(`${partner.name} has no fee schedules.`);
      for (const s of contract) ctx.out(describeSchedule(s));
    },
  },
  {
    name: 'contract set',
    summary: 'create or replace the fee schedule of one TransactionSourceGroupId',
    usage:
      'contract set <clientId> --group <1-12> --card-rate <pct> --platform-rate <pct> --max-rate <pct> ' +
      '[--per-trans <amount>] [--ach-rate <pct>] [--ach-cap <amount>|none] [--card-type-fee BRAND=<amount>]...',
    options: {
      group: GROUP_OPTION,
      'card-rate': { type: 'string', value: '<pct>', description: 'card fee rate, percent (0 to below 100, up to 4 decimals)', required: true },
      'platform-rate': { type: 'string', value: '<pct>', description: 'platform commission rate, percent', required: true },
      'max-rate': { type: 'string', value: '<pct>', description: 'maximum commission rate, percent (the platform rate may not exceed it)', required: true },
      'per-trans': { type: 'string', value: '<amount>', description: 'fee per transaction, like 0.30', default: formatCents(0) },
      'ach-rate': { type: 'string', value: '<pct>', description: 'ACH fee rate, percent', default: ACH_RATE_DEFAULT },
      'ach-cap': { type: 'string', value: '<amount>|none', description: 'most an ACH fee can be', default: 'no cap' },
      'card-type-fee': { type: 'string', value: 'BRAND=<amount>', multiple: true, description: `extra fee for one card brand: ${Object.keys(BRANDS).join(', ')}`, default: 'none' },
    },
    async run(ctx, { values, positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const groupText = groupArg(values, this.usage);
      const cardTypeFeesCents: Record<string, number> = {};
      for (const entry of (values['card-type-fee'] as string[] | undefined) ?? []) {
        const [brand, value] = entry.split('=');
        const type = BRANDS[(brand ?? '').trim().toUpperCase()];
        if (!type || value === undefined) {
          throw new UsageError(`--card-type-fee takes BRAND=amount with BRAND one of ${Object.keys(BRANDS).join(', ')}, got "${entry}"`);
        }
        cardTypeFeesCents[type] = amount(value, `card type fee of ${brand}`);
      }
      const cap = values['ach-cap'];
      const schedule: FeeSchedule = {
        groupId: Number(groupText),
        cardFeeRate: rate(values, 'card-rate', this.usage),
        platformCommissionRate: rate(values, 'platform-rate', this.usage),
        maxCommissionRate: rate(values, 'max-rate', this.usage),
        perTransFeeCents: typeof values['per-trans'] === 'string' ? amount(values['per-trans'], '--per-trans') : 0,
        cardTypeFeesCents,
        achFeeRate: rate(values, 'ach-rate', this.usage, ACH_RATE_DEFAULT),
        achFeeCapCents: typeof cap === 'string' && cap !== 'none' ? amount(cap, '--ach-cap') : null,
      };
      await (await ctx.services()).partners.setSchedule(id, schedule);
      ctx.out(ctx.json ? JSON.stringify(schedule) : `Set ${describeSchedule(schedule)}`);
    },
  },
  {
    name: 'contract remove',
    summary: 'remove the fee schedule of one group (fees for it are then "not found")',
    usage: 'contract remove <clientId> --group <1-12>',
    options: { group: GROUP_OPTION },
    async run(ctx, { values, positionals }) {
      const id = requiredPositional(positionals, 0, 'clientId', this.usage);
      const group = Number(groupArg(values, this.usage));
      const { partners } = await ctx.services();
      const partner = await partners.getPartner(id);
      const removed = await partners.removeSchedule(partner.clientId, group);
      if (ctx.json) return ctx.out(JSON.stringify({ ClientId: partner.clientId, group, removed }));
      ctx.out(removed ? `Removed the schedule of group ${group}.` : `There was no schedule for group ${group}.`);
    },
  },
];
