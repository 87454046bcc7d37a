import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { Trunk } from '../src/modules/trunks/trunk.entity';
import { TrunksService } from '../src/modules/trunks/trunks.service';
import { twoTenants, type TestTenant } from './support/factories';
import { bearer, startTestApp, type TestApp } from './support/test-app';

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

const SECRET = 'sip-Secret-4815162342';
const valid = (overrides: Record<string, unknown> = {}) => ({
  name: 'Carrier one',
  host: 'sip.carrier.example',
  port: 5061,
  transport: 'tls',
  username: 'acme',
  password: SECRET,
  callerId: '+34911222333',
  maxConcurrentCalls: 30,
  ...overrides,
});

describe('SIP trunks (e2e)', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  let agentA: string;
  let tenantA: TestTenant;

  const create = async (token: string, body: Record<string, unknown>) =>
    (await t.http().post('/api/trunks').set(bearer(token)).send(body).expect(200)).body.data as { id: string };

  beforeAll(async () => {
    // Carriers on a private network and on a documentation range: allowed by the operator, as
    // on-premises trunks need (outgoing-addresses.e2e-spec.ts covers the refusals).
    t = await startTestApp({ outgoingAllowedCidrs: ['10.0.0.0/8', '203.0.113.0/24'] });
    ({ adminA, adminB, agentA, tenantA } = await twoTenants(t));
  });
  afterAll(() => t.close());

  it('creates a trunk, stores the secret encrypted and never answers it', async () => {
    const response = await t.http().post('/api/trunks').set(bearer(adminA)).send(valid()).expect(200);
    const created = response.body.data;
    expect(created).toMatchObject({
      name: 'Carrier one',
      host: 'sip.carrier.example',
      port: 5061,
      transport: 'tls',
      username: 'acme',
      hasPassword: true,
      callerId: '+34911222333',
      maxConcurrentCalls: 30,
      active: true,
    });
    expect(created).not.toHaveProperty('password');
    expect(JSON.stringify(response.body)).not.toContain(SECRET);
    const row = await t.dataSource.getRepository(Trunk).findOneByOrFail({ id: created.id });
    expect(row.passwordEncrypted).toMatch(/^v1\./);
    expect(row.passwordEncrypted).not.toContain(SECRET);
    const raw: { password_encrypted: string }[] = await t.dataSource.query(`SELECT password_encrypted FROM trunks WHERE id = $1`, [
      created.id,
    ]);
    expect(raw[0].password_encrypted).not.toBe(SECRET);

    for (const path of [`/api/trunks/${created.id}`, '/api/trunks']) {
      expect(JSON.stringify((await t.http().get(path).set(bearer(adminA)).expect(200)).body)).not.toContain(SECRET);
    }
    const audit = await t.dataSource.getRepository(AuditLog).find({ where: { entityId: created.id } });
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(SECRET);
    const trail = await t.http().get('/api/audit').query({ entityType: 'trunk', entityId: created.id }).set(bearer(adminA)).expect(200);
    expect(trail.body.data.total).toBe(1);
    expect(JSON.stringify(trail.body)).not.toContain(SECRET);

    // Only the server-side dialing look-up decrypts it.
    const dialing = await t.app.get(TrunksService).resolveTrunkForDialing(tenantA.client.id, created.id);
    expect(dialing).toMatchObject({ host: 'sip.carrier.example', port: 5061, transport: 'tls', username: 'acme', password: SECRET });
  });

  it('keeps the stored secret when an edit sends an empty password, and replaces it when a new one is sent', async () => {
    const trunk = await create(adminA, valid({ name: 'Keep secret' }));
    const before = (await t.dataSource.getRepository(Trunk).findOneByOrFail({ id: trunk.id })).passwordEncrypted;
    const kept = (
      await t
        .http()
        .put(`/api/trunks/${trunk.id}`)
        .set(bearer(adminA))
        .send(valid({ name: 'Keep secret', password: '', port: 5070 }))
        .expect(200)
    ).body.data;
    expect(kept).toMatchObject({ port: 5070, hasPassword: true });
    expect((await t.dataSource.getRepository(Trunk).findOneByOrFail({ id: trunk.id })).passwordEncrypted).toBe(before);
    const changed = await t
      .http()
      .put(`/api/trunks/${trunk.id}`)
      .set(bearer(adminA))
      .send(valid({ name: 'Keep secret', password: 'new-secret-99' }))
      .expect(200);
    expect(JSON.stringify(changed.body)).not.toContain('new-secret-99');
    const dialing = await t.app.get(TrunksService).resolveTrunkForDialing(tenantA.client.id, trunk.id);
    expect(dialing.password).toBe('new-secret-99');
    const updates = await t.dataSource.getRepository(AuditLog).find({ where: { entityId: trunk.id, action: 'update' } });
    expect(updates).toHaveLength(2);
    expect(JSON.stringify(updates)).not.toContain('new-secret-99');
  });

  it('defaults the port to 5060 and the transport to udp, and needs no secret', async () => {
    const trunk = (
      await t
        .http()
        .post('/api/trunks')
        .set(bearer(adminA))
        .send({ name: 'IP auth', host: '203.0.113.10', maxConcurrentCalls: 5 })
        .expect(200)
    ).body.data;
    expect(trunk).toMatchObject({ port: 5060, transport: 'udp', hasPassword: false, username: null, callerId: null });
    expect(trunk).toMatchObject({ countryCode: null, nationalPrefix: null });
  });

  it('keeps the country code and national prefix national-format called numbers are read with', async () => {
    const created = await create(adminA, valid({ name: 'UK carrier', countryCode: '44', nationalPrefix: '0' }));
    const read = (await t.http().get(`/api/trunks/${created.id}`).set(bearer(adminA)).expect(200)).body.data;
    expect(read).toMatchObject({ countryCode: '44', nationalPrefix: '0' });
    const raw = await t.dataSource.query(`SELECT country_code, national_prefix FROM trunks WHERE id = $1`, [created.id]);
    expect(raw[0]).toEqual({ country_code: '44', national_prefix: '0' });
    const cleared = await t
      .http()
      .put(`/api/trunks/${created.id}`)
      .set(bearer(adminA))
      .send(valid({ name: 'UK carrier', password: '', countryCode: '34', nationalPrefix: null }))
      .expect(200);
    expect(cleared.body.data).toMatchObject({ countryCode: '34', nationalPrefix: null });
  });

  it('keeps the allowed carrier sources (the voice server answers other sources 403), and refuses a bad entry naming the field', async () => {
    const created = await create(
      adminA,
      valid({ name: 'Listed carrier', allowedSources: [' 203.0.113.10 ', '198.51.100.0/24', '2001:db8::/32'] }),
    );
    const read = (await t.http().get(`/api/trunks/${created.id}`).set(bearer(adminA)).expect(200)).body.data;
    expect(read.allowedSources).toEqual(['203.0.113.10', '198.51.100.0/24', '2001:db8::/32']);
    const raw = await t.dataSource.query(`SELECT allowed_sources FROM trunks WHERE id = $1`, [created.id]);
    expect(raw[0].allowed_sources).toEqual(['203.0.113.10', '198.51.100.0/24', '2001:db8::/32']);
    // An edit without the field keeps the list; an empty list clears it (the trunk's host only).
    const kept = await t
      .http()
      .put(`/api/trunks/${created.id}`)
      .set(bearer(adminA))
      .send(valid({ name: 'Listed carrier', password: '' }))
      .expect(200);
    expect(kept.body.data.allowedSources).toEqual(['203.0.113.10', '198.51.100.0/24', '2001:db8::/32']);
    const cleared = await t
      .http()
      .put(`/api/trunks/${created.id}`)
      .set(bearer(adminA))
      .send(valid({ name: 'Listed carrier', password: '', allowedSources: [] }))
      .expect(200);
    expect(cleared.body.data.allowedSources).toEqual([]);
    expect((await create(adminA, valid({ name: 'Default sources' }))).id).toBeDefined();

    const bad: [unknown, string][] = [
      [
        ['203.0.113.0/33'],
        'allowedSources has "203.0.113.0/33", which is not an IP address or a CIDR network (203.0.113.10, 203.0.113.0/24, 2001:db8::/32)',
      ],
      [
        ['sip.carrier.example'],
        'allowedSources has "sip.carrier.example", which is not an IP address or a CIDR network (203.0.113.10, 203.0.113.0/24, 2001:db8::/32)',
      ],
      [[42], 'allowedSources is not in the expected format'],
      [Array.from({ length: 101 }, (_, i) => `10.0.${i}.1`), 'allowedSources must have at most 100 entries'],
    ];
    for (const [allowedSources, message] of bad) {
      const response = await t
        .http()
        .post('/api/trunks')
        .set(bearer(adminA))
        .send(valid({ name: 'Bad sources', allowedSources }))
        .expect(400);
      expect(response.body.data.fields).toEqual({ allowedSources: [message] });
    }
    const badEdit = await t
      .http()
      .put(`/api/trunks/${created.id}`)
      .set(bearer(adminA))
      .send(valid({ name: 'Listed carrier', password: '', allowedSources: ['203.0.113.10', '10.0.0.0/99'] }))
      .expect(400);
    expect(badEdit.body.data.issues).toEqual([{ field: 'allowedSources', key: 'sourceAddress', values: { value: '10.0.0.0/99' } }]);
    expect(await t.dataSource.getRepository(Trunk).countBy({ clientId: tenantA.client.id, name: 'Bad sources' })).toBe(0);
    expect((await t.dataSource.getRepository(Trunk).findOneByOrFail({ id: created.id })).allowedSources).toEqual([]);
  });

  it('refuses each invalid field, naming it', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: '' }, 'name', 'name is required'],
      [{ host: '' }, 'host', 'host is required'],
      [{ host: 'not a host!' }, 'host', 'host is not in the expected format'],
      [{ host: '999.1.1.1' }, 'host', 'host is not in the expected format'],
      [{ port: 0 }, 'port', 'port must be between 1 and 65535'],
      [{ port: 70000 }, 'port', 'port must be between 1 and 65535'],
      [{ transport: 'sctp' }, 'transport', 'transport must be one of udp, tcp, tls, ws, wss'],
      [{ callerId: '12-34' }, 'callerId', 'callerId is not in the expected format'],
      [{ countryCode: '+34' }, 'countryCode', 'countryCode is not in the expected format'],
      [{ countryCode: '44', nationalPrefix: 'zero' }, 'nationalPrefix', 'nationalPrefix is not in the expected format'],
      [{ nationalPrefix: '0' }, 'countryCode', 'countryCode is required'],
      [{ maxConcurrentCalls: 0 }, 'maxConcurrentCalls', 'maxConcurrentCalls must be between 1 and 1000'],
      [{ maxConcurrentCalls: 1001 }, 'maxConcurrentCalls', 'maxConcurrentCalls must be between 1 and 1000'],
      [{ maxConcurrentCalls: undefined }, 'maxConcurrentCalls', 'maxConcurrentCalls is required'],
    ];
    for (const [override, field, message] of cases) {
      const response = await t
        .http()
        .post('/api/trunks')
        .set(bearer(adminA))
        .send(valid({ name: `Bad ${field}`, ...override }))
        .expect(400);
      expect(response.body.data.fields).toEqual({ [field]: [message] });
    }
    const typed = await t
      .http()
      .post('/api/trunks')
      .set(bearer(adminA))
      .send(valid({ port: '5060' }))
      .expect(400);
    expect(typed.body.errorMessage).toContain('port');
    await create(adminA, valid({ name: 'Twice' }));
    const clash = await t
      .http()
      .post('/api/trunks')
      .set(bearer(adminA))
      .send(valid({ name: 'twice' }))
      .expect(409);
    expect(clash.body.data.fields.name).toBeDefined();
    expect(await t.dataSource.getRepository(Trunk).countBy({ clientId: tenantA.client.id, name: 'Bad host' })).toBe(0);
  });

  it('pages, sorts and filters the list of the caller’s tenant only', async () => {
    await create(adminB, valid({ name: 'B carrier', host: 'b.example' }));
    const { adminA: admin } = await twoTenants(t);
    for (const [name, host] of [
      ['Gamma', 'gamma.example'],
      ['Alpha', 'alpha.example'],
      ['Beta', '10.0.0.1'],
    ]) {
      await create(admin, valid({ name, host }));
    }
    const page1 = (await t.http().get('/api/trunks').query({ pageSize: 2, sortField: 'name' }).set(bearer(admin)).expect(200)).body.data;
    expect(page1.total).toBe(3);
    expect(page1.items.map((i: { name: string }) => i.name)).toEqual(['Alpha', 'Beta']);
    const page2 = (await t.http().get('/api/trunks').query({ page: 2, pageSize: 2, sortField: 'name' }).set(bearer(admin)).expect(200)).body
      .data;
    expect(page2.items.map((i: { name: string }) => i.name)).toEqual(['Gamma']);
    const byHost = (await t.http().get('/api/trunks').query({ q: '10.0.0' }).set(bearer(admin)).expect(200)).body.data;
    expect(byHost.items.map((i: { name: string }) => i.name)).toEqual(['Beta']);
    await t.http().get('/api/trunks').query({ sortField: 'password' }).set(bearer(admin)).expect(400);
  });

  it("soft-deletes, answers 404 for another tenant's trunk and 403 to an agent", async () => {
    const mine = await create(adminA, valid({ name: 'To delete' }));
    const other = await create(adminB, valid({ name: 'B only' }));
    await t.http().get(`/api/trunks/${other.id}`).set(bearer(adminA)).expect(404);
    await t.http().put(`/api/trunks/${other.id}`).set(bearer(adminA)).send(valid()).expect(404);
    await t.http().delete(`/api/trunks/${other.id}`).set(bearer(adminA)).expect(404);
    await expect(t.app.get(TrunksService).resolveTrunkForDialing(tenantA.client.id, other.id)).rejects.toThrow();
    await t.http().get('/api/trunks').set(bearer(agentA)).expect(403);
    await t
      .http()
      .post('/api/trunks')
      .set(bearer(agentA))
      .send(valid({ name: 'Agent trunk' }))
      .expect(403);

    await t.http().delete(`/api/trunks/${mine.id}`).set(bearer(adminA)).expect(200);
    await t.http().get(`/api/trunks/${mine.id}`).set(bearer(adminA)).expect(404);
    const row = await t.dataSource.getRepository(Trunk).findOneOrFail({ where: { id: mine.id }, withDeleted: true });
    expect(row.deletedAt).not.toBeNull();
    const deleted = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: mine.id, action: 'delete' });
    expect(deleted.before).toMatchObject({ name: 'To delete', hasPassword: true });
    await expect(t.app.get(TrunksService).resolveTrunkForDialing(tenantA.client.id, mine.id)).rejects.toThrow();
  });
});
