import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

let ctx: TestContext;
const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-demo-'));
  dirs.push(dir);
  return dir;
};
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the demo seed', () => {
  it("leaves a database's demo partners alone for a server with another data directory", async () => {
    const first = await seedDemo(ctx.services, dataDir());
    if ('elsewhere' in first) throw new Error('the first seed made no partners');
    const partner = first.partners[0]!;
    const session = await ctx.services.sessions.createSession(partner.ClientId, partner.ClientSecret);

    // A second server process on the same database, its DATA_DIR new.
    const second = await seedDemo(ctx.services, dataDir());
    expect(second).toEqual({ elsewhere: true, partners: first.partners.map((p) => ({ name: p.name, kind: p.kind, ClientId: p.ClientId })) });
    // The first server's secrets, access tokens and gateway password still work.
    expect(await ctx.services.partners.verifyClientSecret(partner.ClientId, partner.ClientSecret)).toBe(true);
    expect(await ctx.services.partners.verifyApiKey(partner.ClientId, partner.ApiKey)).toBe(true);
    expect(await ctx.services.sessions.authenticate(session.token)).toBeTruthy();
    const user = first.gatewayUsers[0]!;
    expect((await ctx.services.gatewayUsers.authenticate(user.Username, user.Password)).ok).toBe(true);
    // The charity samples and two gateway password hashes (128 MiB each) take a while.
  }, 180_000);
});
