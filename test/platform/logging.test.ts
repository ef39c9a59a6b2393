import { describe, expect, it } from 'vitest';
import { safeError, safeUrl } from '../../src/platform/logging.ts';

describe('log hygiene', () => {
  it("cuts a database error's parameters and quoted values out of the message and the stack", () => {
    const err = new Error('Failed query: insert into payment_tokens values ($1, $2)\nparams: v1:key:SEALED,4242424242424242');
    const cause = Object.assign(new Error('invalid input syntax for type uuid: "urn:uuid:secret-ish"'), { detail: 'Key (gateway_key)=(1000001) already exists' });
    (err as Error & { cause: unknown }).cause = cause;
    const text = JSON.stringify(safeError(err));
    // The message says why the query failed: the cause, masked like the rest.
    expect(safeError(err).message).toBe('Failed query: invalid input syntax for type uuid: "[REDACTED]"');
    expect(text).toContain('Failed query: insert into payment_tokens');
    for (const leaked of ['SEALED', '4242424242424242', 'secret-ish', '1000001']) expect(text).not.toContain(leaked);
    const down = new Error('Failed query: select 1\nparams: ', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }) });
    expect(safeError(down)).toMatchObject({ message: 'Failed query: connect ECONNREFUSED 127.0.0.1:5432', code: 'ECONNREFUSED' });
    // A cause is said once (pino's own message already carries it).
    expect(safeError(new Error('outer', { cause: new Error('inner') })).message).toBe('outer: inner');
  });

  it('masks the pay link id in /paylink/<id> and secret query parameters', () => {
    expect(safeUrl('/paylink/XEjvNCsNQckDK-PLob_VCnGT')).toMatch(/^\/paylink\/#[\w-]{10}$/);
    expect(safeUrl('/paylink/XEjvNCsNQckDK-PLob_VCnGT')).toBe(safeUrl('/paylink/XEjvNCsNQckDK-PLob_VCnGT'));
    // Percent-encoded paths reach the same page: the id is masked there too (a security review found it).
    for (const encoded of ['/%70aylink/XEjvNCsNQckDK-PLob_VCnGT', '/PayLink/XEjvNCsNQckDK%2DPLob_VCnGT?x=1', '//paylink/XEjvNCsNQckDK-PLob_VCnGT/']) {
      expect(safeUrl(encoded)).not.toContain('XEjvNCsNQckDK');
      expect(safeUrl(encoded)).toContain(safeUrl('/paylink/XEjvNCsNQckDK-PLob_VCnGT').slice('/paylink/'.length));
    }
    // A path the router cannot decode still has its id masked.
    expect(safeUrl('/paylink/%ffsecret-id')).not.toContain('secret-id');
    expect(safeUrl('/api/paylink?PayLinkId=abc&IntegrationSource=x')).toBe('/api/paylink?PayLinkId=%5BREDACTED%5D&IntegrationSource=x');
    expect(safeUrl('/api/paylinkResult?responseToken=t0k')).not.toContain('t0k');
  });

  it('masks the pay link id in a request line in absolute form (http://host/paylink/<id>), as proxies send it (an audit of the logs)', () => {
    for (const url of ['http://localhost:8080/paylink/XEjvNCsNQckDK-PLob_VCnGT', 'HTTPS://pay.example.org/PayLink/XEjvNCsNQckDK-PLob_VCnGT?notice=deleted']) {
      expect(safeUrl(url)).not.toContain('XEjvNCsNQckDK');
      expect(safeUrl(url)).toMatch(/^\/PayLink\/#[\w-]{10}|^\/paylink\/#[\w-]{10}/);
    }
    expect(safeUrl('http://localhost:8080')).toBe('/');
  });

  it('logs the values of the parameters routes read only; any other parameter by name (an e-mail in a URL is not logged)', () => {
    expect(safeUrl('/api/CharitySearch?Name=red%20cross&State=DC&PageSize=10')).toBe('/api/CharitySearch?Name=red+cross&State=DC&PageSize=10');
    expect(safeUrl('/api/fee?Amount=10.00&Email=payer%40example.org&PayLinkUrl=http%3A%2F%2Fx%2Fpaylink%2Fabc')).toBe(
      '/api/fee?Amount=10.00&Email=%5BREDACTED%5D&PayLinkUrl=%5BREDACTED%5D',
    );
    expect(safeUrl('/admin/ws/recurring.asmx?op=GetToken&FirstName=Grace')).toBe('/admin/ws/recurring.asmx?op=GetToken&FirstName=%5BREDACTED%5D');
  });

  it('drops the hint of a database error (a trigger can put row values there)', () => {
    const err = Object.assign(new Error('trigger refused'), { code: 'P0001', hint: 'payer Grace Hopper at 1 Main St' });
    expect(JSON.stringify(safeError(err))).not.toContain('Grace');
  });
});

describe('log redaction of processor credentials (issue 30)', () => {
  it('never writes an Authorize.Net transaction key, alone or in a request body', async () => {
    const { Writable } = await import('node:stream');
    const { createLogger } = await import('../../src/platform/logging.ts');
    let out = '';
    const log = createLogger('info', new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) }));
    log.info({ transactionKey: 'Q1w2E3r4T5y6U7i8', body: { merchantAuthentication: { name: 'login', transactionKey: 'Q1w2E3r4T5y6U7i8' } } }, 'credentials');
    expect(out).toContain('credentials');
    expect(out).not.toContain('Q1w2E3r4T5y6U7i8');
  });
});
