import { randomBytes } from 'node:crypto';
import type { Envelope, UnsubscribeResult, UnsubscribeView } from '@centralita/contracts';
import { UnsubscribeSigner, isMailBlocked, mailBlockedMessage, unsubscribeHeaders } from '@centralita/contracts/server';
import { createTenant, type TestTenant } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(30_000);

/** A unique client address per test: the public routes are limited per IP (TRUST_PROXY=loopback here). */
const ip = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
const address = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}@Recipient.Example.com`;

describe('Unsubscribe links and the one-click POST (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const signer = new UnsubscribeSigner(process.env);

  const listed = async (tenantId: string, email: string) =>
    (await t.dataSource.query(`SELECT reason, source FROM mail_blacklist WHERE tenant_id = $1 AND address = $2`, [
      tenantId,
      email.toLowerCase(),
    ])) as { reason: string; source: string }[];

  /** The https link exactly as a campaign mail carries it (the headers E1's sender adds). */
  const linkOf = (email: string, tenantId = tenant.client.id) => {
    const header = unsubscribeHeaders({ tenantId, address: email, publicUrl: t.url, mailtoDomain: 'mail.example.org', signer });
    const url = new URL(/^<([^>]+)>/.exec(header['List-Unsubscribe'])![1]);
    return { path: `${url.pathname}${url.search}`, token: url.searchParams.get('token')!, header };
  };

  beforeAll(async () => {
    t = await startTestApp({ trustProxy: ['loopback'] });
    tenant = await createTenant(t.dataSource);
  });
  afterAll(() => t.close());

  it('takes the RFC 8058 one-click POST on the List-Unsubscribe URL without a session, and a later send is refused with the reason', async () => {
    const email = address('oneclick');
    const { path, header } = linkOf(email);
    expect(header['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(path).toMatch(/^\/session\/Unsubscribe\//);

    const response = await t
      .http()
      .post(path)
      .set('X-Forwarded-For', ip())
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('List-Unsubscribe=One-Click')
      .expect(200);
    expect((response.body as Envelope<UnsubscribeResult>).data).toMatchObject({ unsubscribed: true, added: true });

    expect(await listed(tenant.client.id, email)).toEqual([{ reason: 'unsubscribe', source: 'one-click' }]);
    // The send-time check the worker runs (same SQL, through pg's answer shape or TypeORM's).
    const reason = await isMailBlocked(t.dataSource, tenant.client.id, email.toUpperCase());
    expect(reason).toBe('unsubscribe');
    expect(mailBlockedMessage(reason!)).toMatch(/unsubscribed.*nothing was sent/);

    // Providers retry: a second POST is answered 200 again and stores nothing new.
    const again = await t
      .http()
      .post(path)
      .set('X-Forwarded-For', ip())
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('List-Unsubscribe=One-Click')
      .expect(200);
    expect((again.body as Envelope<UnsubscribeResult>).data?.added).toBe(false);
  });

  it('takes the one-click POST as a multipart form too', async () => {
    const email = address('multipart');
    const { path } = linkOf(email);
    await t.http().post(path).set('X-Forwarded-For', ip()).field('List-Unsubscribe', 'One-Click').expect(200);
    expect(await listed(tenant.client.id, email)).toEqual([{ reason: 'unsubscribe', source: 'one-click' }]);
  });

  it('refuses a one-click POST without the One-Click body, and stores nothing', async () => {
    const email = address('nobody');
    const { path } = linkOf(email);
    const response = await t
      .http()
      .post(path)
      .set('X-Forwarded-For', ip())
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('List-Unsubscribe=Maybe')
      .expect(400);
    expect((response.body as Envelope<null>).errorMessage).toMatch(/List-Unsubscribe=One-Click/);
    expect(await listed(tenant.client.id, email)).toEqual([]);
  });

  it('shows the public page masked, confirms with the signed token, and is idempotent', async () => {
    const email = address('page');
    const { token } = linkOf(email);
    const encoded = encodeURIComponent(email);
    const view = await t
      .http()
      .get(`/api/public/unsubscribe/${encoded}`)
      .query({ token, lang: 'en' })
      .set('X-Forwarded-For', ip())
      .expect(200);
    const data = (view.body as Envelope<UnsubscribeView>).data!;
    expect(data).toEqual({ maskedAddress: 'p***@r***.com', tenantName: tenant.client.name, logoUrl: null, unsubscribed: false });
    expect(JSON.stringify(view.body)).not.toContain(email.toLowerCase());

    const confirm = await t
      .http()
      .post(`/api/public/unsubscribe/${encoded}`)
      .query({ token })
      .set('X-Forwarded-For', ip())
      .send({})
      .expect(200);
    expect((confirm.body as Envelope<UnsubscribeResult>).data).toMatchObject({ unsubscribed: true, added: true });
    expect(await listed(tenant.client.id, email)).toEqual([{ reason: 'unsubscribe', source: 'link' }]);

    const twice = await t
      .http()
      .post(`/api/public/unsubscribe/${encoded}`)
      .query({ token })
      .set('X-Forwarded-For', ip())
      .send({})
      .expect(200);
    expect((twice.body as Envelope<UnsubscribeResult>).data?.added).toBe(false);
    const after = await t.http().get(`/api/public/unsubscribe/${encoded}`).query({ token }).set('X-Forwarded-For', ip()).expect(200);
    expect((after.body as Envelope<UnsubscribeView>).data?.unsubscribed).toBe(true);
  });

  it('answers 400 naming the problem for a forged, borrowed, cut or missing token, and stores nothing', async () => {
    const victim = address('victim');
    const attacker = address('attacker');
    const { token: attackersOwn } = linkOf(attacker);
    const forged = `u1.${tenant.client.id}.${randomBytes(32).toString('base64url')}`;
    const otherKey = UnsubscribeSigner.fromKey('cd'.repeat(32)).sign(tenant.client.id, victim);
    const encoded = encodeURIComponent(victim);
    for (const token of [forged, attackersOwn, otherKey, attackersOwn.slice(0, -3), 'not-a-token']) {
      const page = await t
        .http()
        .post(`/api/public/unsubscribe/${encoded}`)
        .query({ token })
        .set('X-Forwarded-For', ip())
        .send({})
        .expect(400);
      expect((page.body as Envelope<null>).errorMessage).toMatch(/unsubscribe link is not valid for this address/);
      await t
        .http()
        .post(`/session/Unsubscribe/${encoded}`)
        .query({ token })
        .set('X-Forwarded-For', ip())
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('List-Unsubscribe=One-Click')
        .expect(400);
    }
    const missing = await t.http().get(`/api/public/unsubscribe/${encoded}`).set('X-Forwarded-For', ip()).expect(400);
    expect((missing.body as Envelope<null>).errorMessage).toMatch(/has no token/);
    const bare = await t
      .http()
      .post(`/api/public/unsubscribe/not-an-address`)
      .query({ token: forged })
      .set('X-Forwarded-For', ip())
      .expect(400);
    expect((bare.body as Envelope<null>).errorMessage).toMatch(/valid address/);
    expect(await listed(tenant.client.id, victim)).toEqual([]);
  });

  it("lists the address for the link's tenant only", async () => {
    const other = await createTenant(t.dataSource);
    const email = address('scoped');
    const { token } = linkOf(email, other.client.id);
    await t
      .http()
      .post(`/api/public/unsubscribe/${encodeURIComponent(email)}`)
      .query({ token })
      .set('X-Forwarded-For', ip())
      .send({})
      .expect(200);
    expect(await isMailBlocked(t.dataSource, other.client.id, email)).toBe('unsubscribe');
    expect(await isMailBlocked(t.dataSource, tenant.client.id, email)).toBeNull();
  });

  it('limits the public routes per client address (429 with Retry-After)', async () => {
    const from = ip();
    const email = address('limited');
    const { token } = linkOf(email);
    let last = 0;
    let retryAfter: string | undefined;
    for (let i = 0; i < 31; i++) {
      const response = await t
        .http()
        .get(`/api/public/unsubscribe/${encodeURIComponent(email)}`)
        .query({ token })
        .set('X-Forwarded-For', from);
      last = response.status;
      retryAfter = response.headers['retry-after'];
    }
    expect(last).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
