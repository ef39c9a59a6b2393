import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { PaymentResult } from '../../../src/domain/payment-status.ts';
import type { SaleRequest, SaleResult } from '../../../src/processors/processor.ts';
import { PAY_LINK_LEASE_MS, payLinkRef } from '../../../src/modules/paylinks/paylink-service.ts';
import { type TestContext, createTestContext, withSimulator } from '../../helpers/context.ts';
import { CARD, createLink, csrfOf, h1Of, openPage, paymentCount, redirectQuery, submit, titleOf } from './paylink-helpers.ts';
import { connectionLostError, unreachableDatabaseError } from '../../helpers/unreachable-database.ts';

/**
 * One payment per link, whatever the timing: the lease is a fencing token (only its holder can
 * complete or release the link), a payment that may have charged keeps every other out however
 * long it takes, a payment that finds its link cancelled meanwhile is voided, and a link whose
 * success could not be recorded stays closed.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { payLinkSubmitLimitPerLink: 1000, payLinkSubmitLimitPerIp: 1000 } });
});
afterAll(() => ctx.close());
const restore: (() => void)[] = [];
afterEach(() => {
  for (const undo of restore.splice(0).reverse()) undo();
});

/** Puts `value` in `target[key]` until the test ends, or until `undo()` is called first. */
function replaceUntilEnd<T extends object, K extends keyof T>(target: T, key: K, value: T[K]): { undo: () => void } {
  const original = target[key];
  target[key] = value;
  const undo = () => {
    target[key] = original;
  };
  restore.push(undo);
  return { undo };
}

type Simulator = { sale(r: SaleRequest): Promise<SaleResult>; void(...args: unknown[]): Promise<unknown> };
const simulator = () => ctx.services.processorAdapters.get('simulator') as unknown as Simulator;

/** Makes the processor's next sale wait until `answer()` is called (a slow bank). */
function slowNextSale() {
  const sim = simulator();
  const original = sim.sale;
  let answer: (() => void) | undefined;
  let first = true;
  sim.sale = async function (this: unknown, request: SaleRequest) {
    if (first) {
      first = false;
      await new Promise<void>((resolve) => (answer = resolve));
    }
    return original.call(sim, request);
  };
  restore.push(() => {
    sim.sale = original;
  });
  return {
    /** Resolves once the slow sale is waiting at the processor. */
    waiting: () => vi.waitFor(() => expect(answer).toBeDefined()),
    answer: () => answer!(),
  };
}

async function lastPayments(n: number) {
  return ctx.store.sql.query<{ id: string; successful: boolean; payment_result: number }>(
    'SELECT id, successful, payment_result FROM payments ORDER BY payment_id DESC LIMIT $1',
    [n],
  );
}
const linkRow = async (id: string) =>
  (await ctx.store.sql.query<{ status: string; payment_id: string | null; lease_until: Date | null }>('SELECT status, payment_id, lease_until FROM pay_links WHERE id = $1', [id]))[0]!;
const twoForms = async (id: string) => [csrfOf((await openPage(ctx, id)).html), csrfOf((await openPage(ctx, id)).html)] as const;
const logsWith = (msg: string) => ctx.logs.filter((l) => l.includes(msg)).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the lease of a link', () => {
  it('lasts 10 minutes, well over the slowest simulated processor call (60 s)', async () => {
    expect(PAY_LINK_LEASE_MS).toBe(10 * 60_000);
    expect(() => loadConfig({ SIMULATOR_LATENCY_MS: '60001' })).toThrow(/SIMULATOR_LATENCY_MS/);
    const { id } = await createLink(ctx);
    expect(await ctx.services.payLinks.hold(id)).toBeDefined();
    ctx.clock.advance(PAY_LINK_LEASE_MS - 1000);
    expect(await ctx.services.payLinks.hold(id)).toBeUndefined();
    ctx.clock.advance(2000);
    expect(await ctx.services.payLinks.hold(id)).toBeDefined();
  });

  it('is a fencing token: after a takeover the old holder can neither release nor complete the link', async () => {
    const links = ctx.services.payLinks;
    const { id } = await createLink(ctx);
    const first = (await links.hold(id))!;
    ctx.clock.advance(PAY_LINK_LEASE_MS + 1);
    const second = (await links.hold(id))!;
    expect(second).toBeDefined();
    // The first holder's decline must not let a third submission in while the second pays.
    expect(await links.release(first)).toBe(false);
    expect(await links.hold(id)).toBeUndefined();
    expect(await links.complete(first, { paymentId: undefined })).toBe(false);
    expect((await linkRow(id)).status).toBe('active');
    expect(await links.complete(second, {})).toBe(true);
    expect((await linkRow(id)).status).toBe('completed');
    // Completed: nobody holds or releases it any more.
    expect(await links.release(second)).toBe(false);
    expect(await links.hold(id)).toBeUndefined();
  });

  it('completes nothing once the link was cancelled', async () => {
    const links = ctx.services.payLinks;
    const { id } = await createLink(ctx);
    const lease = (await links.hold(id))!;
    await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${id}` });
    expect(await links.complete(lease, {})).toBe(false);
    expect(await links.release(lease)).toBe(false);
    expect((await linkRow(id)).status).toBe('cancelled');
  });
});

describe('a payment that outlives its lease', () => {
  it('keeps a second browser out while the first payment is at the processor, even past the lease (one charge, nothing voided)', async () => {
    const { id } = await createLink(ctx);
    const [formA, formB] = await twoForms(id);
    const slow = slowNextSale();
    const count = await paymentCount(ctx);
    const a = submit(ctx, id, CARD, { csrf: formA });
    await slow.waiting();
    ctx.clock.advance(PAY_LINK_LEASE_MS + 60_000); // the bank took longer than the lease
    const b = await submit(ctx, id, CARD, { csrf: formB });
    expect(b.statusCode).toBe(409);
    expect(b.body).toContain('A payment for this link is already being processed.');
    slow.answer();
    const paidA = redirectQuery(await a);

    expect(await paymentCount(ctx)).toBe(count + 1);
    const [paid] = await lastPayments(1);
    expect(paid).toMatchObject({ id: paidA.get('PaymentGuid'), payment_result: PaymentResult.Successful });
    expect(await linkRow(id)).toMatchObject({ status: 'completed', payment_id: paidA.get('PaymentGuid') });
  });

  it('is voided when the partner cancelled the link meanwhile', async () => {
    const { id } = await createLink(ctx);
    const slow = slowNextSale();
    const a = submit(ctx, id, CARD);
    await slow.waiting();
    await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${id}` });
    slow.answer();
    const lost = await a;
    expect(lost.statusCode).toBe(409);
    expect(lost.body).toContain('your payment was cancelled and you will not be charged.');
    expect(titleOf(lost.body)).toBe('Payment cancelled');
    const [voided] = await lastPayments(1);
    expect(voided!.payment_result).toBe(PaymentResult.Cancelled);
    expect(await linkRow(id)).toMatchObject({ status: 'cancelled', payment_id: null });
  });

  it('stands, logged, with a reference for the payer, when the void fails', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Language: 'fr' });
    const slow = slowNextSale();
    replaceUntilEnd(simulator(), 'void', async () => {
      throw new Error('bank unreachable');
    });
    const a = submit(ctx, id, CARD);
    await slow.waiting();
    await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${id}` });
    slow.answer();
    const lost = await a;
    const [standing] = await lastPayments(1);
    expect(standing!.payment_result).toBe(PaymentResult.Successful);
    expect(lost.statusCode).toBe(409);
    expect(titleOf(lost.body)).toBe('Le paiement n’a pas pu être annulé');
    expect(lost.body).toContain(`votre paiement n’a pas pu être annulé automatiquement. Veuillez contacter Test Charity Partner en indiquant la référence ${standing!.id}.`);
    expect(logsWith('pay link payment made after the link was lost: void refused; the payment stands')[0]).toMatchObject({ payLinkRef: payLinkRef(id), paymentGuid: standing!.id });
  });
});

describe('a processor call whose outcome is unknown (a timeout: it may have charged)', () => {
  it('tells the payer not to pay again and keeps the link closed, after its lease too: no second charge', async () => {
    const { id } = await createLink(ctx);
    const [formA, formB] = await twoForms(id);
    const timedOut = async (): Promise<never> => {
      throw new Error('read timeout');
    };
    const first = await withSimulator(ctx.services, { sale: timedOut }, () => submit(ctx, id, CARD, { csrf: formA }));
    expect(first.statusCode).toBe(409);
    const [held] = await lastPayments(1);
    expect(held!.payment_result).toBe(PaymentResult.Processing);
    expect([titleOf(first.body), h1Of(first.body)]).toEqual(['Payment status unknown', 'Payment status unknown']);
    expect(first.body).toContain(`Please do not pay again: Test Charity Partner will confirm whether it went through. Your reference: ${held!.id}.`);

    // The bank answers again; the link still takes no payment, even once the lease has lapsed.
    const count = await paymentCount(ctx);
    ctx.clock.advance(PAY_LINK_LEASE_MS + 1000);
    const second = await submit(ctx, id, CARD, { csrf: formB });
    expect(second.statusCode).toBe(409);
    expect(await paymentCount(ctx)).toBe(count);
    expect((await linkRow(id)).status).toBe('active');
  });
});

describe('a success that cannot be recorded', () => {
  it('answers with the error page after trying again, and the next attempt completes the link with that payment (no second charge)', async () => {
    const { id } = await createLink(ctx);
    const [formA, formB] = await twoForms(id);
    let attempts = 0;
    const broken = replaceUntilEnd(ctx.services.payLinks, 'complete', async () => {
      attempts++;
      throw new Error('connection lost');
    });
    const count = await paymentCount(ctx);
    const failed = await submit(ctx, id, CARD, { csrf: formA });
    expect(failed.statusCode).toBe(500);
    expect(attempts).toBe(3);
    expect(await paymentCount(ctx)).toBe(count + 1);
    expect((await lastPayments(1))[0]!.payment_result).toBe(PaymentResult.Successful);
    expect(logsWith('pay link paid but not completed')[0]).toMatchObject({ payLinkRef: payLinkRef(id) });

    broken.undo();
    const [paid] = await lastPayments(1);
    expect((await linkRow(id)).status).toBe('active');
    // The next attempt to pay finds the successful payment and completes the link with it: no
    // second charge, now or after the lease.
    const again = await submit(ctx, id, CARD, { csrf: formB });
    expect(again.statusCode).toBe(303);
    expect(await paymentCount(ctx)).toBe(count + 1);
    expect(await linkRow(id)).toMatchObject({ status: 'completed', payment_id: paid!.id, lease_until: null });
    expect(logsWith('pay link completed with the successful payment its submission could not record')[0]).toMatchObject({ payLinkRef: payLinkRef(id) });
  });

  it('shows the receipt, not the form, to the next visit of a link charged without completing it (a chaos audit: the form was offered again)', async () => {
    const { id } = await createLink(ctx);
    const [formA] = await twoForms(id);
    const broken = replaceUntilEnd(ctx.services.payLinks, 'complete', async () => {
      throw new Error('connection lost');
    });
    expect((await submit(ctx, id, CARD, { csrf: formA })).statusCode).toBe(500);
    broken.undo();
    const [paid] = await lastPayments(1);
    expect((await linkRow(id)).status).toBe('active');
    const page = await ctx.app.inject({ method: 'GET', url: `/paylink/${id}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Thank you!');
    expect(page.body).not.toContain('name="CardNum"');
    expect(await linkRow(id)).toMatchObject({ status: 'completed', payment_id: paid!.id, lease_until: null });
  });

  it('keeps the link held when the payment ends in an unexpected error (its outcome is unknown)', async () => {
    const { id } = await createLink(ctx);
    const [formA, formB] = await twoForms(id);
    const broken = replaceUntilEnd(ctx.services.payments, 'payCard', async () => {
      throw new Error('lost the answer');
    });
    expect((await submit(ctx, id, CARD, { csrf: formA })).statusCode).toBe(500);
    broken.undo();
    expect((await submit(ctx, id, CARD, { csrf: formB })).statusCode).toBe(409);
  });

  it('still lets the payer try again after a decline or a refused form', async () => {
    const { id } = await createLink(ctx);
    expect((await submit(ctx, id, { ...CARD, CardNum: '4000000000009995' })).statusCode).toBe(200);
    expect((await linkRow(id)).lease_until).toBeNull();
    redirectQuery(await submit(ctx, id, CARD));
  });
});

describe('a submission that fails before its payment is recorded', () => {
  /** Makes the next statement whose text begins with `prefix` fail with `error`. */
  function failNext(prefix: string, error: Error) {
    const sql = ctx.store.sql;
    const query = sql.query;
    let failed = false;
    sql.query = (async (text: string, ...rest: unknown[]) => {
      if (!failed && text.startsWith(prefix)) {
        failed = true;
        throw error;
      }
      return (query as (...args: unknown[]) => Promise<unknown>).call(sql, text, ...rest);
    }) as typeof sql.query;
    restore.push(() => {
      sql.query = query;
    });
  }

  it('gives the link back: nothing was charged (a saved card this server cannot open, the database down)', async () => {
    const { id } = await createLink(ctx);
    const count = await paymentCount(ctx);
    failNext('WITH p AS (INSERT INTO payments', unreachableDatabaseError());
    expect((await submit(ctx, id, CARD)).statusCode).toBe(503);
    expect(await paymentCount(ctx)).toBe(count);
    expect((await linkRow(id)).lease_until).toBeNull();
    redirectQuery(await submit(ctx, id, CARD, { csrf: csrfOf((await openPage(ctx, id)).html) }));
  });

  it('keeps the link when the Pending row may have been written (the connection failed around the write)', async () => {
    const { id } = await createLink(ctx);
    failNext('WITH p AS (INSERT INTO payments', connectionLostError());
    expect((await submit(ctx, id, CARD)).statusCode).toBe(503);
    expect((await linkRow(id)).lease_until).not.toBeNull();
    const again = await submit(ctx, id, CARD, { csrf: csrfOf((await openPage(ctx, id)).html) });
    expect(again.statusCode).toBe(409);
  });
});

describe('a payment whose outcome is unknown (the process stopped while the processor was asked)', () => {
  /** A submission whose sale never answered: as far as the database knows, the process died there. */
  async function stranded() {
    const { id } = await createLink(ctx);
    const slow = slowNextSale();
    const request = submit(ctx, id, CARD);
    await slow.waiting();
    const [row] = await ctx.store.sql.query<{ id: string; payment_result: number; pay_link_id: string }>(
      'SELECT id, payment_result, pay_link_id FROM payments WHERE pay_link_id = $1',
      [id],
    );
    expect(row).toMatchObject({ payment_result: PaymentResult.Pending, pay_link_id: id });
    // Past the lease and past the time after which an unanswered call counts as unknown.
    ctx.clock.advance(16 * 60_000);
    return { id, guid: row!.id, slow, request };
  }

  it('keeps the link from a second payment until an operator finds the charge, which completes the link', async () => {
    const { id, guid, slow, request } = await stranded();
    const count = await paymentCount(ctx);
    const again = await submit(ctx, id, CARD, { csrf: csrfOf((await openPage(ctx, id)).html) });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('A payment for this link is already being processed.');
    expect(await paymentCount(ctx)).toBe(count);

    const listed = (await ctx.services.pendingPayments.list(15)).payments.find((p) => p.paymentGuid === guid);
    expect(listed?.payLinkRef).toBe(payLinkRef(id));
    const resolution = await ctx.services.pendingPayments.resolve(guid, { kind: 'approved', transactionId: 'SIM-STRANDED-1' });
    expect(resolution).toMatchObject({ paymentResult: PaymentResult.Successful, payLink: 'completed' });
    expect(await linkRow(id)).toMatchObject({ status: 'completed', payment_id: guid, lease_until: null });
    expect((await submit(ctx, id, CARD, { csrf: csrfOf((await openPage(ctx, id)).html) })).statusCode).not.toBe(200);

    // The process was only slow: its late approval finds the link completed with its own payment,
    // and neither voids it nor charges again.
    slow.answer();
    expect([200, 302, 303]).toContain((await request).statusCode);
    expect(await ctx.store.sql.query('SELECT payment_result FROM payments WHERE id = $1', [guid])).toEqual([{ payment_result: PaymentResult.Successful }]);
    expect(await paymentCount(ctx)).toBe(count);
    expect(await ctx.store.sql.query("SELECT 1 FROM payment_adjustments WHERE payment_id = $1", [guid])).toEqual([]);
  });

  it('opens the link again when the processor has no such charge', async () => {
    const { id, guid, slow, request } = await stranded();
    const resolution = await ctx.services.pendingPayments.resolve(guid, { kind: 'not-processed' });
    expect(resolution).toMatchObject({ paymentResult: PaymentResult.Failed, payLink: 'open' });
    expect(await linkRow(id)).toMatchObject({ status: 'active', payment_id: null });
    const paid = redirectQuery(await submit(ctx, id, CARD, { csrf: csrfOf((await openPage(ctx, id)).html) }));
    expect(await linkRow(id)).toMatchObject({ status: 'completed', payment_id: paid.get('PaymentGuid') });
    slow.answer();
    await request;
  });

  it('leaves a link cancelled meanwhile as it is, and says when the payer was charged on it', async () => {
    const first = await stranded();
    await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${first.id}` });
    const charged = await ctx.services.pendingPayments.resolve(first.guid, { kind: 'approved', transactionId: 'SIM-STRANDED-2' });
    expect(charged).toMatchObject({ paymentResult: PaymentResult.Successful, payLink: 'charged on an inactive link' });
    expect(await linkRow(first.id)).toMatchObject({ status: 'cancelled', payment_id: null });

    const second = await stranded();
    await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${second.id}` });
    const none = await ctx.services.pendingPayments.resolve(second.guid, { kind: 'declined' });
    expect(none).toMatchObject({ paymentResult: PaymentResult.Failed, payLink: 'not active' });
    expect((await linkRow(second.id)).status).toBe('cancelled');
    for (const s of [first, second]) {
      s.slow.answer();
      await s.request;
    }
  });
});
