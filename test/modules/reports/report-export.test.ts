import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORMULA_STARTS, HEADER, neutralise } from '../../../src/modules/reports/report-cells.ts';
import { crlfRecords, csvExport, excelExport } from '../../../src/modules/reports/report-export.ts';
import type { ReportRow } from '../../../src/modules/reports/report-fields.ts';
import type { Batches } from '../../../src/modules/reports/report-repository.ts';

/** The file writers, fed by batches in memory: backpressure, the end, a reader that goes away. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function row(n: number): ReportRow {
  return {
    paymentId: n,
    paymentGuid: crypto.randomUUID(),
    paymentDate: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
    processedDate: null,
    tranId: `t-${n}`,
    paymentExternalId: `tx-${n}`,
    authCode: null,
    paymentMethod: 'card',
    paymentMethodTypeId: 3,
    cardType: 'Visa',
    cardLastFour: '4242',
    checkAccountLastFour: null,
    currency: 'USD',
    amountCents: 10_000 + n,
    tipCents: 0,
    taxCents: 0,
    shippingFeeCents: null,
    surchargeCents: null,
    totalAmountCents: 10_000 + n,
    totalFeesCents: 820,
    totalCommissionCents: 500,
    partnerCommissionCents: 400,
    platformCommissionCents: 100,
    netAmountCents: 9180 + n,
    processStatus: 2,
    paymentResult: 3,
    responseCode: '0',
    responseMessage: 'Approved',
    settlementDate: null,
    settlementBatch: null,
    refundedAmountCents: null,
    refundedDate: null,
    voidedAmountCents: null,
    voidedDate: null,
    processorGuid: crypto.randomUUID(),
    integrationSourceGuid: null,
    integrationSourceName: null,
    organizationGuid: null,
    organizationName: null,
    charityId: null,
    charityName: null,
    recurringProfileGuid: null,
    recurringProfileId: null,
    billDate: n % 2 ? '2026-01-31' : null,
    payLinkId: null,
    firstName: n % 3 ? 'Ada' : '=cmd',
    lastName: 'Lovelace',
    email: 'ada@example.org',
    externalConstituentId: null,
  };
}

/** `count` batches of `size` rows, counting reads and closes. */
function fakeBatches<T>(count: number, size: number, make: (n: number) => T) {
  const state = { reads: 0, closed: 0 };
  const batches: Batches<T> = {
    next: async () => {
      state.reads += 1;
      if (state.reads > count) return [];
      return Array.from({ length: size }, (_, i) => make((state.reads - 1) * size + i + 1));
    },
    close: async () => {
      state.closed += 1;
    },
  };
  return { batches, state };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

describe('excelExport', () => {
  it('reads the next batch only when the reader has taken the bytes of the last (backpressure)', async () => {
    const { batches, state } = fakeBatches(20, 500, row);
    const out = excelExport(batches, await batches.next(), new Date('2026-03-01T00:00:00Z'));
    const first: Buffer[] = [];
    out.once('data', (chunk: Buffer) => {
      first.push(chunk);
      out.pause();
    });
    await sleep(1_500);
    // The zip's and the stream's buffers hold a few batches; 20 were waiting.
    expect(state.reads).toBeLessThanOrEqual(8);
    const file = Buffer.concat([...first, await readAll(out)]);
    expect(state.reads).toBe(21);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(file as unknown as ArrayBuffer);
    expect(workbook.worksheets[0]!.actualRowCount).toBe(10_001);
  }, 60_000);

  it('stops reading and closes the batches when the reader goes away', async () => {
    const { batches, state } = fakeBatches(40, 1000, row);
    const out = excelExport(batches, await batches.next(), new Date());
    out.once('data', () => out.destroy());
    await sleep(1_000);
    expect(state.reads).toBeLessThanOrEqual(3);
    expect(state.closed).toBeGreaterThanOrEqual(1);
  });
});

describe('csvExport (csv-stringify, from the cells the database wrote)', () => {
  const cells = (n: number): (string | null)[] => HEADER.map((_, i) => (i === 0 ? String(n) : i === 1 ? '' : i === 2 ? null : i === 3 ? 'a,"b"\nc' : 'x'));

  it('writes RFC 4180: a header, CRLF, quotes where needed, an empty text quoted and a missing value empty', async () => {
    const { batches } = fakeBatches(2, 3, cells);
    const text = (await readAll(csvExport({ kind: 'cells', first: await batches.next(), batches }))).toString();
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(HEADER.join(','));
    expect(text.startsWith(`${HEADER.join(',')}\r\n1,"",,"a,""b""\nc",x,`)).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const records: string[][] = parse(text);
    expect(records).toHaveLength(7);
    expect(records[1]!.slice(0, 4)).toEqual(['1', '', '', 'a,"b"\nc']);
  });

  it('of no rows is its header', async () => {
    const { batches } = fakeBatches(0, 3, cells);
    expect((await readAll(csvExport({ kind: 'cells', first: await batches.next(), batches }))).toString()).toBe(`${HEADER.join(',')}\r\n`);
  });

  it('reads batches only as the reader asks, and closes them when it goes away', async () => {
    const { batches, state } = fakeBatches(1000, 1000, cells);
    const out = csvExport({ kind: 'cells', first: await batches.next(), batches });
    out.once('data', () => out.pause());
    await sleep(500);
    // The stream's buffer (256 KiB) holds a few batches; 1,000 were waiting.
    expect(state.reads).toBeLessThanOrEqual(10);
    out.destroy();
    await sleep(50);
    expect(state.closed).toBe(1);
  });
});

describe('crlfRecords (COPY writes LF)', () => {
  const through = async (chunks: string[]) => (await readAll(Readable.from(chunks.map((c) => Buffer.from(c))).pipe(crlfRecords()))).toString();

  it('ends records with CRLF, and leaves line breaks inside values alone', async () => {
    expect(await through(['a,b\n"x\ny",""""\n', 'c,"d\n"\n'])).toBe('a,b\r\n"x\ny",""""\r\nc,"d\n"\r\n');
  });

  it('gives the same bytes however the input is cut (property)', async () => {
    const records = fc.array(fc.array(fc.oneof(fc.constant(''), fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', 'é') })), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(records, fc.array(fc.nat(), { maxLength: 5 }), async (rows, cuts) => {
        const field = (v: string) => (/[,"\n]/.test(v) || v === '' ? `"${v.replaceAll('"', '""')}"` : v);
        const lf = rows.map((r) => `${r.map(field).join(',')}\n`).join('');
        const positions = [...new Set(cuts.map((c) => c % (lf.length + 1)))].sort((a, b) => a - b);
        const pieces = [0, ...positions, lf.length].slice(1).map((end, i, all) => lf.slice(i === 0 ? 0 : all[i - 1], end));
        const out = await through(pieces.filter((p) => p.length > 0));
        expect(out).toBe(rows.map((r) => `${r.map(field).join(',')}\r\n`).join(''));
        expect(parse(out, { relaxColumnCount: true })).toEqual(parse(lf, { relaxColumnCount: true }));
      }),
      { numRuns: 200 },
    );
  });
});

describe('neutralise', () => {
  it.each(FORMULA_STARTS.map((c) => [JSON.stringify(c), c]))('prefixes a cell that begins with %s', (_name, c) => {
    expect(neutralise(`${c}1+1`)).toBe(`'${c}1+1`);
  });

  it('leaves other text alone', () => {
    expect(neutralise('Ada')).toBe('Ada');
    expect(neutralise('')).toBe('');
    expect(neutralise('a=b')).toBe('a=b');
  });
});
