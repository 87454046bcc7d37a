import type { AuthResult, CreatedIntegrationKey, Envelope, ExternLoginVicidialResult } from '@centralita/contracts';
import { createReseller, createTenant, createUser, type TestTenant } from './support/factories';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

describe('External dialer sign-in (ExternLoginVicidial, e2e)', () => {
  const PUBLIC_URL = 'https://console.centralita.test';
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let adminToken: string;

  const createKey = async (token: string, body: { name: string; callbackOrigins?: string[] }) => {
    const response = await t.http().post('/api/integration-keys').set(bearer(token)).send(body);
    expect(response.status).toBe(200);
    return (response.body as Envelope<CreatedIntegrationKey>).data!;
  };
  const issue = (key: string, body: Record<string, unknown>, header: 'bearer' | 'x-api-key' = 'x-api-key') => {
    const request = t.http().post('/api/ExternLoginVicidial');
    return (header === 'bearer' ? request.set('Authorization', `Bearer ${key}`) : request.set('X-Api-Key', key)).send(body);
  };
  const linkId = (url: string): string => {
    const match = /\/session\/vicidial\/([A-Za-z0-9_-]{43})(?:\/|$)/.exec(url);
    if (!match) throw new Error(`no link id in ${url}`);
    return match[1];
  };

  beforeAll(async () => {
    t = await startTestApp({ publicUrl: PUBLIC_URL });
    tenant = await createTenant(t.dataSource);
    other = await createTenant(t.dataSource);
    const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    adminToken = (await login(t, admin.email, admin.password)).accessToken;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issues a single-use link that signs the agent in once, with an ordinary session', async () => {
    const { key, hint } = await createKey(adminToken, { name: 'VICIdial main' });
    expect(key.startsWith(hint)).toBe(true);
    const { user, email } = await createUser(t.dataSource, tenant, { role: 'AGENT' });

    const issued = await issue(key, { agent: email.toUpperCase() });
    expect(issued.status).toBe(200);
    const { url, expiresAt } = (issued.body as Envelope<ExternLoginVicidialResult>).data!;
    expect(url.startsWith(`${PUBLIC_URL}/session/vicidial/`)).toBe(true);
    const ttl = new Date(expiresAt).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(125_000);

    const id = linkId(url);
    const [stored] = await t.dataSource.query<{ token_hash: string; user_id: string }[]>(
      `SELECT token_hash, user_id FROM vicidial_login_links WHERE user_id = $1`,
      [user.id],
    );
    expect(stored.user_id).toBe(user.id);
    expect(stored.token_hash).not.toContain(id);

    const opened = await t.http().post(`/api/auth/vicidial/${id}`).send({});
    expect(opened.status).toBe(200);
    const session = (opened.body as Envelope<AuthResult & { callback: string | null }>).data!;
    expect(session.user).toMatchObject({ id: user.id, role: 'AGENT', clientId: tenant.client.id });
    expect(session.callback).toBeNull();
    await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(200);
    // The same refresh families as a password sign-in: the refresh token rotates.
    await t.http().post('/Session/RefreshToken').send({ refreshToken: session.refreshToken }).expect(200);

    const again = await t.http().post(`/api/auth/vicidial/${id}`).send({});
    expect(again.status).toBe(404);
    expect((again.body as Envelope<unknown>).errorMessage).toMatch(/invalid, has expired or was already used/);

    const [{ last_used_at }] = await t.dataSource.query<{ last_used_at: Date | null }[]>(
      `SELECT last_used_at FROM integration_keys WHERE hint = $1`,
      [hint],
    );
    expect(last_used_at).not.toBeNull();
    const audit = await t.dataSource.query<{ action: string; after: { event: string; reason?: string; agentId?: string } }[]>(
      `SELECT a.action, a.after FROM audit_log a JOIN vicidial_login_links l ON l.id = a.entity_id
        WHERE a.entity_type = 'vicidial-link' AND l.user_id = $1 ORDER BY a.created_at, a.id`,
      [user.id],
    );
    expect(audit.map((row) => row.after.event)).toEqual(['issued', 'used', 'refused']);
    expect(audit[0].after.agentId).toBe(user.id);
    expect(audit[2].after.reason).toBe('already-used');
  });

  it('accepts the key as a bearer token and the agent by user id; two concurrent opens sign in once', async () => {
    const { key } = await createKey(adminToken, { name: 'Bearer dialer' });
    const { user } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    const issued = await issue(key, { agent: user.id }, 'bearer');
    expect(issued.status).toBe(200);
    const id = linkId((issued.body as Envelope<ExternLoginVicidialResult>).data!.url);
    const results = await Promise.all([0, 1, 2].map(() => t.http().post(`/api/auth/vicidial/${id}`).send({})));
    expect(results.map((response) => response.status).sort()).toEqual([200, 404, 404]);
  });

  it('refuses an expired link with the same notice and records it as expired', async () => {
    const { key } = await createKey(adminToken, { name: 'Expiry dialer' });
    const { user, email } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    const issued = await issue(key, { agent: email });
    const id = linkId((issued.body as Envelope<ExternLoginVicidialResult>).data!.url);
    // The link's clock moved past its expiry (the database's now() decides, as in production).
    await t.dataSource.query(`UPDATE vicidial_login_links SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.id]);
    await t.http().post(`/api/auth/vicidial/${id}`).send({}).expect(404);
    const [row] = await t.dataSource.query<{ after: { reason: string } }[]>(
      `SELECT a.after FROM audit_log a JOIN vicidial_login_links l ON l.id = a.entity_id
        WHERE l.user_id = $1 AND a.after->>'event' = 'refused'`,
      [user.id],
    );
    expect(row.after.reason).toBe('expired');
  });

  it('answers 404 for an unknown or malformed link id', async () => {
    await t
      .http()
      .post(`/api/auth/vicidial/${'A'.repeat(43)}`)
      .send({})
      .expect(404);
    await t.http().post('/api/auth/vicidial/not-a-link').send({}).expect(404);
  });

  it('refuses a missing, unknown or revoked key with 401, and the revoked key’s unused links stop working', async () => {
    const { key, id: keyId } = await createKey(adminToken, { name: 'Soon revoked' });
    const { email } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    const before = await issue(key, { agent: email });
    const link = linkId((before.body as Envelope<ExternLoginVicidialResult>).data!.url);

    await t.http().post('/api/ExternLoginVicidial').send({ agent: email }).expect(401);
    await issue(`ctk_${'x'.repeat(43)}`, { agent: email }).expect(401);

    await t.http().delete(`/api/integration-keys/${keyId}`).set(bearer(adminToken)).expect(200);
    const refused = await issue(key, { agent: email });
    expect(refused.status).toBe(401);
    expect((refused.body as Envelope<unknown>).errorMessage).toMatch(/integration key/);
    await t.http().post(`/api/auth/vicidial/${link}`).send({}).expect(404);

    const list = await t.http().get('/api/integration-keys').set(bearer(adminToken)).expect(200);
    const listed = (list.body as Envelope<Array<{ id: string; revokedAt: string | null; key?: string }>>).data!.find(
      (row) => row.id === keyId,
    );
    expect(listed?.revokedAt).not.toBeNull();
    expect(listed).not.toHaveProperty('key');
  });

  it("answers 404 for another tenant's agent and for unknown agents", async () => {
    const { key } = await createKey(adminToken, { name: 'Scoped' });
    const foreign = await createUser(t.dataSource, other, { role: 'AGENT' });
    await issue(key, { agent: foreign.email }).expect(404);
    await issue(key, { agent: foreign.user.id }).expect(404);
    await issue(key, { agent: 'nobody@example.com' }).expect(404);
  });

  it('never signs in administrators, supervisors or disabled agents (403)', async () => {
    const { key } = await createKey(adminToken, { name: 'Agents only' });
    const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    const supervisor = await createUser(t.dataSource, tenant, { role: 'SUPER' });
    const disabled = await createUser(t.dataSource, tenant, { role: 'AGENT', active: false });
    const refused = await issue(key, { agent: admin.email });
    expect(refused.status).toBe(403);
    expect((refused.body as Envelope<unknown>).errorMessage).toMatch(/agents only/);
    await issue(key, { agent: supervisor.email }).expect(403);
    await issue(key, { agent: disabled.email }).expect(403);
  });

  it('refuses a link whose agent was disabled after it was issued', async () => {
    const { key } = await createKey(adminToken, { name: 'Late disable' });
    const { user, email } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    const id = linkId(((await issue(key, { agent: email })).body as Envelope<ExternLoginVicidialResult>).data!.url);
    await t.dataSource.query(`UPDATE users SET active = false WHERE id = $1`, [user.id]);
    await t.http().post(`/api/auth/vicidial/${id}`).send({}).expect(404);
  });

  it('checks callbacks: console paths and public URLs pass, private hosts and foreign origins answer 400', async () => {
    const { key } = await createKey(adminToken, { name: 'Callbacks' });
    const { email } = await createUser(t.dataSource, tenant, { role: 'AGENT' });

    const ok = await issue(key, { agent: email, callback: 'https://dialer.example.com/agc/vicidial.php?x=1' });
    expect(ok.status).toBe(200);
    const { url } = (ok.body as Envelope<ExternLoginVicidialResult>).data!;
    expect(url.endsWith(`/${encodeURIComponent('https://dialer.example.com/agc/vicidial.php?x=1')}`)).toBe(true);

    const path = await issue(key, { agent: email, callback: '/SoftPhoneNew/Phone' });
    expect(path.status).toBe(200);
    const opened = await t
      .http()
      .post(`/api/auth/vicidial/${linkId((path.body as Envelope<ExternLoginVicidialResult>).data!.url)}`)
      .send({});
    expect((opened.body as Envelope<{ callback: string }>).data!.callback).toBe('/SoftPhoneNew/Phone');

    for (const callback of [
      'http://127.0.0.1/x',
      'http://10.1.2.3/agc',
      'http://169.254.169.254/',
      'javascript:alert(1)',
      '//evil.example',
      'https://u:p@dialer.example.com/',
    ]) {
      const refused = await issue(key, { agent: email, callback });
      expect({ callback, status: refused.status }).toEqual({ callback, status: 400 });
      expect((refused.body as Envelope<{ fields: Record<string, string[]> }>).data!.fields.callback[0]).toMatch(/callback/);
    }

    // A key with an allow-list: its origins only (an on-premises dialer may be private).
    const listed = await createKey(adminToken, { name: 'On-prem', callbackOrigins: ['http://10.20.0.5:8080/'] });
    expect(listed.callbackOrigins).toEqual(['http://10.20.0.5:8080']);
    await issue(listed.key, { agent: email, callback: 'http://10.20.0.5:8080/agc/vicidial.php' }).expect(200);
    const foreign = await issue(listed.key, { agent: email, callback: 'https://dialer.example.com/' });
    expect(foreign.status).toBe(400);
    expect((foreign.body as Envelope<unknown>).errorMessage).toMatch(/not one of this key's allowed origins/);
  });

  it('validates bodies and key input with clear 400s', async () => {
    const { key } = await createKey(adminToken, { name: 'Validation' });
    const missing = await issue(key, {});
    expect(missing.status).toBe(400);
    expect((missing.body as Envelope<unknown>).errorMessage).toMatch(/agent/);
    await issue(key, { agent: { $ne: null } }).expect(400);
    await t.http().post('/api/integration-keys').set(bearer(adminToken)).send({ name: '' }).expect(400);
    const origin = await t
      .http()
      .post('/api/integration-keys')
      .set(bearer(adminToken))
      .send({ name: 'x', callbackOrigins: ['ftp://x'] });
    expect(origin.status).toBe(400);
    expect((origin.body as Envelope<unknown>).errorMessage).toMatch(/origin/);
  });

  it('keeps keys to their tenant: agents get 403, another tenant’s admin 404, staff organisations 403', async () => {
    const { id } = await createKey(adminToken, { name: 'Private' });
    const agent = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    const agentToken = (await login(t, agent.email, agent.password)).accessToken;
    await t.http().get('/api/integration-keys').set(bearer(agentToken)).expect(403);
    await t.http().post('/api/integration-keys').set(bearer(agentToken)).send({ name: 'x' }).expect(403);

    const otherAdmin = await createUser(t.dataSource, other, { role: 'ADMIN' });
    const otherToken = (await login(t, otherAdmin.email, otherAdmin.password)).accessToken;
    await t.http().delete(`/api/integration-keys/${id}`).set(bearer(otherToken)).expect(404);
    const list = await t.http().get('/api/integration-keys').set(bearer(otherToken)).expect(200);
    expect((list.body as Envelope<Array<{ id: string }>>).data!.some((row) => row.id === id)).toBe(false);

    const { staff } = await createReseller(t.dataSource);
    const resellerAdmin = await createUser(t.dataSource, staff, { role: 'RESELLER_ADMIN' });
    const resellerToken = (await login(t, resellerAdmin.email, resellerAdmin.password)).accessToken;
    await t.http().post('/api/integration-keys').set(bearer(resellerToken)).send({ name: 'x' }).expect(403);
  });

  it('writes the key’s creation and revocation to the audit trail', async () => {
    const { id } = await createKey(adminToken, { name: 'Audited' });
    await t.http().delete(`/api/integration-keys/${id}`).set(bearer(adminToken)).expect(200);
    const rows = await t.dataSource.query<{ action: string }[]>(
      `SELECT action FROM audit_log WHERE entity_type = 'integration-key' AND entity_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(rows.map((row) => row.action)).toEqual(['create', 'delete']);
  });
  it('trades a key for a short-lived API token (security/GetApiViciToken) that issues links in its place until the key is revoked', async () => {
    const { key, id: keyId } = await createKey(adminToken, { name: 'Token dialer' });
    const { user, email } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    const asked = await t.http().post('/api/security/GetApiViciToken').set('X-Api-Key', key).send({});
    expect(asked.status).toBe(200);
    const { token, expiresAt } = (asked.body as Envelope<{ token: string; expiresAt: string }>).data!;
    expect(token).toMatch(/^cvt_/);
    const ttl = new Date(expiresAt).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(800_000);
    expect(ttl).toBeLessThanOrEqual(900_000);

    // The token stands for the key: a link for the key's agent, by bearer or by X-Api-Key.
    const issued = await issue(token, { agent: email }, 'bearer');
    expect(issued.status).toBe(200);
    const opened = await t
      .http()
      .post(`/api/auth/vicidial/${linkId((issued.body as Envelope<ExternLoginVicidialResult>).data!.url)}`)
      .send({});
    expect((opened.body as Envelope<AuthResult>).data!.user).toMatchObject({ id: user.id });
    expect((await issue(token, { agent: email })).status).toBe(200);
    // Only the key renews: a token cannot mint another; a forged or a missing one is 401 too.
    expect((await t.http().post('/api/security/GetApiViciToken').set('Authorization', `Bearer ${token}`).send({})).status).toBe(401);
    expect((await t.http().post('/api/security/GetApiViciToken').send({})).status).toBe(401);
    expect((await issue(`${token.slice(0, -2)}xx`, { agent: email })).status).toBe(401);
    // Another tenant's agent is still not the token's to sign in.
    const stranger = await createUser(t.dataSource, other, { role: 'AGENT' });
    expect((await issue(token, { agent: stranger.email })).status).toBe(404);

    // Revoking the key ends its tokens at once.
    await t.http().delete(`/api/integration-keys/${keyId}`).set(bearer(adminToken)).expect(200);
    expect((await issue(token, { agent: email }, 'bearer')).status).toBe(401);
  });
});

describe('External dialer sign-in rate limits (e2e)', () => {
  let t: TestApp;
  const saved = process.env.VICIDIAL_ISSUE_PER_KEY;

  beforeAll(async () => {
    process.env.VICIDIAL_ISSUE_PER_KEY = '3';
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
    if (saved === undefined) delete process.env.VICIDIAL_ISSUE_PER_KEY;
    else process.env.VICIDIAL_ISSUE_PER_KEY = saved;
  });

  it('answers 429 with Retry-After once a key asked for too many links', async () => {
    const tenant = await createTenant(t.dataSource);
    const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    const token = (await login(t, admin.email, admin.password)).accessToken;
    const created = await t.http().post('/api/integration-keys').set(bearer(token)).send({ name: 'Busy dialer' }).expect(200);
    const { key } = (created.body as Envelope<CreatedIntegrationKey>).data!;
    const { email } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    // Seven attempts span at most two fixed windows of three: at least one is refused whatever the clock.
    const responses = [];
    for (let i = 0; i < 7; i++)
      responses.push(await t.http().post('/api/ExternLoginVicidial').set('X-Api-Key', key).send({ agent: email }));
    const refused = responses.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(6);
    expect(Number(refused[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
