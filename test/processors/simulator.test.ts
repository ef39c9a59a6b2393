import { describe, expect, it } from 'vitest';
import { SimulatorProcessor } from '../../src/processors/simulator.ts';
import type { SaleRequest } from '../../src/processors/processor.ts';

const sim = new SimulatorProcessor();
const card = (number: string, extra: Partial<SaleRequest> = {}, cvv: string | null = '123'): SaleRequest => ({
  reference: 'ref-1',
  amountCents: 1000,
  currency: 'USD',
  card: { number, expMonth: '12', expYear: '30', cvv: cvv ?? undefined, paymentMethodTypeId: 3 },
  billing: { name: 'Ada Lovelace', street: '1 Main St', zip: '12345' },
  ...extra,
});

describe('simulator processor: cards', () => {
  it.each(['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '3056930009020004', '5454545454545454', '4111111111111111'])(
    'approves %s with matching AVS and CVV',
    async (number) => {
      const r = await sim.sale(card(number));
      expect(r).toMatchObject({ approved: true, responseCode: '0', message: 'Approved', avsResponse: 'Y', avsStreetStatus: 'Match', avsZipStatus: 'Match', cvvResponse: 'M' });
      expect(r.authCode).toMatch(/^[0-9A-F]{6}$/);
      expect(r.transactionId).toMatch(/^SIM\d{15}$/);
    },
  );

  it.each([
    ['4000000000000002', '12', 'Declined'],
    ['4000000000009995', '50', 'Insufficient funds'],
    ['4000000000000069', '24', 'Invalid expiration date'],
    ['4000000000000127', '12', 'Declined: incorrect CVV'],
    ['4000000000000119', '99', 'Processing error'],
    ['4000000000000101', '12', 'Declined: CVV check failed'],
  ])('declines %s with response code %s', async (number, code, message) => {
    const r = await sim.sale(card(number));
    expect(r).toMatchObject({ approved: false, responseCode: code, message, authCode: null });
  });

  it('approves 4000000000000101 when no CVV is sent, with CVV not processed', async () => {
    const r = await sim.sale(card('4000000000000101', {}, null));
    expect(r).toMatchObject({ approved: true, cvvResponse: 'P' });
  });

  it('reports AVS failures for 4000000000000010 (street and zip) and 4000000000000036 (zip)', async () => {
    expect(await sim.sale(card('4000000000000010'))).toMatchObject({ approved: true, avsResponse: 'N', avsStreetStatus: 'No Match', avsZipStatus: 'No Match' });
    expect(await sim.sale(card('4000000000000036'))).toMatchObject({ approved: true, avsResponse: 'A', avsStreetStatus: 'Match', avsZipStatus: 'No Match' });
  });

  it('uses Z, A and U when only part of the address or none is given', async () => {
    expect(await sim.sale(card('4242424242424242', { billing: { name: 'x', zip: '12345' } }))).toMatchObject({ avsResponse: 'Z', avsStreetStatus: 'Not Provided' });
    expect(await sim.sale(card('4242424242424242', { billing: { name: 'x', street: '1 Main' } }))).toMatchObject({ avsResponse: 'A', avsZipStatus: 'Not Provided' });
    expect(await sim.sale(card('4242424242424242', { billing: { name: 'x' } }))).toMatchObject({ avsResponse: 'U' });
  });

  it('waits the configured latency', async () => {
    const slow = new SimulatorProcessor({ latencyMs: 30 });
    const started = Date.now();
    await slow.sale(card('4242424242424242'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});

describe('simulator processor: ACH', () => {
  const ach = (accountNumber: string, routingNumber = '110000000'): SaleRequest => ({
    reference: 'ref-2',
    amountCents: 5000,
    currency: 'USD',
    bank: { routingNumber, accountNumber, accountType: 1, checkType: 1, country: 'US' },
    billing: { name: 'Ada Lovelace' },
  });

  it('approves any other account', async () => {
    expect(await sim.sale(ach('000123456789'))).toMatchObject({ approved: true, responseCode: '0', cvvResponse: null, avsResponse: null });
  });

  it.each([
    ['000111111116', '23'],
    ['000111111113', '12'],
    ['000222222227', '50'],
    ['000333333335', '12'],
  ])('returns %s with response code %s', async (account, code) => {
    expect(await sim.sale(ach(account))).toMatchObject({ approved: false, responseCode: code });
  });

  it('treats routing number 111000038 as unknown to the network', async () => {
    expect(await sim.sale(ach('000123456789', '111000038'))).toMatchObject({ approved: false, responseCode: '22' });
  });
});
