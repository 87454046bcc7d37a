import { SECRET_MASK } from '@centralita/contracts';
import { Role } from '../src/modules/roles/role.entity';
import { createTenant, createUser, twoTenants, type TestTenant } from './support/factories';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

describe('Softphone API (e2e)', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let adminA: string;
  let adminB: string;
  let agentA: string;
  let agentAId: string;
  let colleague: { token: string; id: string };

  beforeAll(async () => {
    t = await startTestApp();
    ({ tenantA, adminA, adminB, agentA } = await twoTenants(t));
    agentAId = (await t.http().get('/api/auth/user-info').set(bearer(agentA)).expect(200)).body.data.id;
    const other = await createUser(t.dataSource, tenantA, { role: 'AGENT', name: 'Colleague Carla' });
    colleague = { token: (await login(t, other.email, other.password)).accessToken, id: other.user.id };
  });
  afterAll(() => t.close());

  const configure = () =>
    t
      .http()
      .put('/api/softphone/config')
      .set(bearer(adminA))
      .send({ wsUrl: 'wss://sip.example.test:8443', domain: 'sip.example.test', iceServers: [] })
      .expect(200);

  it('answers "not configured" to an agent before the administrator sets anything up', async () => {
    const response = await t.http().get('/api/softphone/settings').set(bearer(agentA)).expect(200);
    expect(response.body.data).toMatchObject({ configured: false, wsUrl: '', extension: '', password: '' });
  });

  it('refuses a server URL that is not ws:// or wss://, naming the field', async () => {
    const response = await t
      .http()
      .put('/api/softphone/config')
      .set(bearer(adminA))
      .send({ wsUrl: 'http://sip.example.test', domain: 'sip.example.test' })
      .expect(400);
    expect(response.body.data.fields.wsUrl).toEqual(['wsUrl must be a ws:// or wss:// URL']);
  });

  it('gives the signed-in agent their own SIP settings, password included, and masks it for administrators', async () => {
    await configure();
    const saved = await t
      .http()
      .put(`/api/softphone/accounts/${agentAId}`)
      .set(bearer(adminA))
      .send({ extension: '1001', password: 's3cret-sip' })
      .expect(200);
    expect(saved.body.data).toMatchObject({ userId: agentAId, extension: '1001', authUser: '1001', password: SECRET_MASK });

    const mine = await t.http().get('/api/softphone/settings').set(bearer(agentA)).expect(200);
    expect(mine.body.data).toMatchObject({
      configured: true,
      wsUrl: 'wss://sip.example.test:8443',
      domain: 'sip.example.test',
      extension: '1001',
      authUser: '1001',
      password: 's3cret-sip',
    });

    const [stored] = await t.dataSource.query(`SELECT password_secret FROM softphone_accounts WHERE user_id = $1`, [agentAId]);
    expect(stored.password_secret).toMatch(/^v1\./);
    expect(stored.password_secret).not.toContain('s3cret-sip');

    const asAdmin = await t.http().get(`/api/softphone/accounts/${agentAId}`).set(bearer(adminA)).expect(200);
    expect(JSON.stringify(asAdmin.body)).not.toContain('s3cret-sip');
    const colleagueView = await t.http().get('/api/softphone/settings').set(bearer(colleague.token)).expect(200);
    expect(JSON.stringify(colleagueView.body)).not.toContain('s3cret-sip');
  });

  it('keeps the stored password when the mask comes back, and refuses an extension taken by a colleague', async () => {
    await t
      .http()
      .put(`/api/softphone/accounts/${agentAId}`)
      .set(bearer(adminA))
      .send({ extension: '1001', authUser: 'agent-a', password: SECRET_MASK })
      .expect(200);
    const mine = await t.http().get('/api/softphone/settings').set(bearer(agentA)).expect(200);
    expect(mine.body.data).toMatchObject({ authUser: 'agent-a', password: 's3cret-sip' });

    await t.http().put(`/api/softphone/accounts/${colleague.id}`).set(bearer(adminA)).send({ extension: '1001' }).expect(409);
  });

  it("answers 404 for another tenant's user and 403 to an agent editing accounts", async () => {
    await t.http().get(`/api/softphone/accounts/${agentAId}`).set(bearer(adminB)).expect(404);
    await t.http().put(`/api/softphone/accounts/${agentAId}`).set(bearer(adminB)).send({ extension: '2001' }).expect(404);
    await t.http().put(`/api/softphone/accounts/${colleague.id}`).set(bearer(agentA)).send({ extension: '1002' }).expect(403);
    await t.http().put('/api/softphone/config').set(bearer(agentA)).send({ wsUrl: 'wss://x.test', domain: 'x.test' }).expect(403);
    // Tenant B sees its own (empty) configuration, not A's.
    const config = await t.http().get('/api/softphone/config').set(bearer(adminB)).expect(200);
    expect(config.body.data.wsUrl).toBe('');
  });

  it('answers 403 to an agent whose role lacks softphone.use', async () => {
    const tenant = await createTenant(t.dataSource);
    const role = tenant.roles.get('AGENT')!;
    await t.dataSource
      .getRepository(Role)
      .update(role.id, { permissions: role.permissions.filter((permission) => permission !== 'softphone.use') });
    const user = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    const token = (await login(t, user.email, user.password)).accessToken;
    await t.http().get('/api/softphone/settings').set(bearer(token)).expect(403);
    await t.http().get('/api/softphone/lookup').query({ number: '88887777' }).set(bearer(token)).expect(403);
  });

  it("pops the caller's contact from the phone lists and a colleague by extension", async () => {
    const [list] = await t.dataSource.query(
      `INSERT INTO phone_lists (client_id, name, entry_count) VALUES ($1, 'Customers', 1) RETURNING id`,
      [tenantA.client.id],
    );
    await t.dataSource.query(
      `INSERT INTO phone_list_entries (list_id, client_id, phone, name, line) VALUES ($1, $2, '+50688887777', 'Ana Mora', 2)`,
      [list.id, tenantA.client.id],
    );
    const byNumber = await t.http().get('/api/softphone/lookup').query({ number: '8888-7777' }).set(bearer(agentA)).expect(200);
    expect(byNumber.body.data.contacts).toEqual([{ name: 'Ana Mora', phone: '+50688887777', listName: 'Customers', source: 'phoneList' }]);

    const byExtension = await t.http().get('/api/softphone/lookup').query({ number: '1001' }).set(bearer(colleague.token)).expect(200);
    expect(byExtension.body.data.contacts).toEqual([expect.objectContaining({ phone: '1001', source: 'extension', listName: null })]);

    // Another tenant's lists never pop up.
    const other = await t.http().get('/api/softphone/lookup').query({ number: '+50688887777' }).set(bearer(adminB)).expect(200);
    expect(other.body.data.contacts).toEqual([]);
  });

  it('stores a disposition once per Call-ID and refuses an unknown one', async () => {
    const bad = await t
      .http()
      .post('/api/softphone/calls')
      .set(bearer(agentA))
      .send({ callId: 'abc@host', direction: 'inbound', remoteNumber: '1002', disposition: 'maybe' })
      .expect(400);
    expect(Object.keys(bad.body.data.fields)).toEqual(['disposition']);

    const call = { callId: 'abc@host', direction: 'inbound', remoteNumber: '1002', disposition: 'callback', notes: 'Call back at 5' };
    await t.http().post('/api/softphone/calls').set(bearer(agentA)).send(call).expect(200);
    await t
      .http()
      .post('/api/softphone/calls')
      .set(bearer(agentA))
      .send({ ...call, disposition: 'resolved' })
      .expect(200);
    const calls = await t.http().get('/api/softphone/calls').set(bearer(agentA)).expect(200);
    expect(calls.body.data).toEqual([expect.objectContaining({ callId: 'abc@host', disposition: 'resolved', notes: 'Call back at 5' })]);
  });

  it('moves the agent to inCall when a SIP call is answered and to afterCallWork on hang-up', async () => {
    await t.http().post('/api/softphone/presence/call-started').set(bearer(colleague.token)).expect(404);
    await t.http().post('/api/agent/presence/login').set(bearer(colleague.token)).send({}).expect(200);
    const inCall = await t.http().post('/api/softphone/presence/call-started').set(bearer(colleague.token)).expect(200);
    expect(inCall.body.data.status).toBe('inCall');
    const ended = await t
      .http()
      .post('/api/softphone/presence/call-ended')
      .set(bearer(colleague.token))
      .send({ disposition: 'sale' })
      .expect(200);
    expect(ended.body.data.status).toBe('afterCallWork');
    // A second hang-up is not a legal transition in afterCallWork.
    await t.http().post('/api/softphone/presence/call-ended').set(bearer(colleague.token)).send({}).expect(409);
  });
});
