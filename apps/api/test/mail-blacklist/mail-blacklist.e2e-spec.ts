import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Envelope, MailBlacklistEntry, MailBlacklistImportResult, Page } from '@centralita/contracts';
import { isMailBlocked, recordHardBounce } from '@centralita/contracts/server';
import { twoTenants, type TwoTenants } from '../support/factories';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(30_000);

const address = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}@blocked.example.com`;

describe('Mail blacklist administration (e2e)', () => {
  let t: TestApp;
  let fx: TwoTenants;

  beforeAll(async () => {
    t = await startTestApp();
    fx = await twoTenants(t);
  });
  afterAll(() => t.close());

  const add = (token: string, body: object) => t.http().post('/api/mail-blacklist').set(bearer(token)).send(body);

  it('adds a validated address (stored lower-case), finds it by search, and removes it', async () => {
    const email = address('Manual').toUpperCase();
    const created = await add(fx.adminA, { address: ` ${email} `, note: 'Asked by phone' }).expect(200);
    const entry = (created.body as Envelope<MailBlacklistEntry>).data!;
    expect(entry).toMatchObject({ address: email.toLowerCase(), reason: 'manual', source: 'admin', note: 'Asked by phone' });
    expect(entry.createdByName).toBeTruthy();
    expect(await isMailBlocked(t.dataSource, fx.tenantA.client.id, email)).toBe('manual');

    const page = await t
      .http()
      .get('/api/mail-blacklist')
      .query({ q: email.slice(0, 12).toLowerCase() })
      .set(bearer(fx.adminA))
      .expect(200);
    expect((page.body as Envelope<Page<MailBlacklistEntry>>).data!.items.map((item) => item.id)).toEqual([entry.id]);

    const duplicate = await add(fx.adminA, { address: email.toLowerCase() }).expect(409);
    expect((duplicate.body as Envelope<null>).errorMessage).toMatch(/already on the mail blacklist \(reason: manual\)/);

    await t.http().delete(`/api/mail-blacklist/${entry.id}`).set(bearer(fx.adminA)).expect(200);
    expect(await isMailBlocked(t.dataSource, fx.tenantA.client.id, email)).toBeNull();
  });

  it('answers 400 naming the field for an invalid address, reason or note, and stores nothing', async () => {
    for (const [body, field] of [
      [{ address: 'not an address' }, /address must be one valid email address/],
      [{ address: 'a@b.com, c@d.com' }, /address must be one valid email address/],
      [{}, /address is required/],
      [{ address: address('r'), reason: 'because' }, /reason must be one of/],
      [{ address: address('n'), note: 'x'.repeat(501) }, /note must be at most 500/],
    ] as const) {
      const response = await add(fx.adminA, body).expect(400);
      expect((response.body as Envelope<null>).errorMessage).toMatch(field);
    }
  });

  it("keeps tenants apart: another tenant's entry answers 404 and never shows in its list", async () => {
    const email = address('tenant-a');
    const entry = (await add(fx.adminA, { address: email }).expect(200)).body as Envelope<MailBlacklistEntry>;
    await t.http().get(`/api/mail-blacklist/${entry.data!.id}`).set(bearer(fx.adminB)).expect(404);
    await t.http().delete(`/api/mail-blacklist/${entry.data!.id}`).set(bearer(fx.adminB)).expect(404);
    const listB = await t.http().get('/api/mail-blacklist').query({ q: email }).set(bearer(fx.adminB)).expect(200);
    expect((listB.body as Envelope<Page<MailBlacklistEntry>>).data!.total).toBe(0);
    expect(await isMailBlocked(t.dataSource, fx.tenantB.client.id, email)).toBeNull();
    // The same address may be listed by B on its own.
    await add(fx.adminB, { address: email }).expect(200);
  });

  it('is for administrators: an agent gets 403, no session 401', async () => {
    await t.http().get('/api/mail-blacklist').set(bearer(fx.agentA)).expect(403);
    await add(fx.agentA, { address: address('agent') }).expect(403);
    await t.http().get('/api/mail-blacklist').expect(401);
  });

  it('imports a CSV: valid addresses listed once, duplicates counted, bad lines reported by number', async () => {
    const first = address('csv1');
    const second = address('csv2');
    const csv = ['name,email', `Ana,${first}`, `Bea,"${second.toUpperCase()}"`, `Ana again,${first}`, 'Bad,not-an-address', ''].join('\n');
    const response = await t
      .http()
      .post('/api/mail-blacklist/import')
      .set(bearer(fx.adminA))
      .set('Content-Type', 'text/csv')
      .send(csv)
      .expect(200);
    expect((response.body as Envelope<MailBlacklistImportResult>).data).toEqual({
      added: 2,
      alreadyListed: 0,
      invalid: [{ line: 5, value: 'not-an-address' }],
    });
    expect(await isMailBlocked(t.dataSource, fx.tenantA.client.id, second)).toBe('manual');
    const again = await t
      .http()
      .post('/api/mail-blacklist/import')
      .set(bearer(fx.adminA))
      .set('Content-Type', 'text/plain')
      .send(first)
      .expect(200);
    expect((again.body as Envelope<MailBlacklistImportResult>).data).toMatchObject({ added: 0, alreadyListed: 1 });
  });

  it('records a hard bounce through a plain pg client (as the worker does), shown with its reason and source', async () => {
    const email = address('bounce');
    const pg = new Client({ connectionString: process.env.DATABASE_URL });
    await pg.connect();
    try {
      expect(await recordHardBounce(pg, fx.tenantA.client.id, email, '550 5.1.1 <x>: Recipient address rejected')).toBe(true);
      expect(await recordHardBounce(pg, fx.tenantA.client.id, email, '550 again')).toBe(false);
      expect(await isMailBlocked(pg, fx.tenantA.client.id, email)).toBe('hard_bounce');
    } finally {
      await pg.end();
    }
    const page = await t.http().get('/api/mail-blacklist').query({ q: email, reason: 'hard_bounce' }).set(bearer(fx.adminA)).expect(200);
    expect((page.body as Envelope<Page<MailBlacklistEntry>>).data!.items[0]).toMatchObject({
      address: email,
      reason: 'hard_bounce',
      source: 'smtp',
      note: '550 5.1.1 <x>: Recipient address rejected',
    });
  });
});
