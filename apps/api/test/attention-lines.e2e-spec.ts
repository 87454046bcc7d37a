import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { AttentionLine } from '../src/modules/attention-lines/attention-line.entity';
import { twoTenants } from './support/factories';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const line = (overrides: Record<string, unknown> = {}) => ({
  name: `Line ${Math.random().toString(36).slice(2, 8)}`,
  type: 'inbound',
  channel: 'WhatsApp',
  businessUnit: 'Retail',
  originType: 'phone-number',
  originLine: '+50688887777',
  serviceType: 'sales',
  internal: false,
  businessHours: [{ day: 1, from: '08:00', to: '17:00' }],
  pollId: null,
  campaignId: null,
  ...overrides,
});

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

describe('Attention lines administration (e2e)', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  let agentA: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ adminA, adminB, agentA } = await twoTenants(t));
  });
  afterAll(() => t.close());

  it('creates, updates with an audit trail, and soft-deletes a line', async () => {
    const created = (
      await t
        .http()
        .post('/api/attention-lines')
        .set(bearer(adminA))
        .send(line({ name: 'Sales WA' }))
        .expect(200)
    ).body.data;
    expect(created).toMatchObject({
      name: 'Sales WA',
      channel: 'WhatsApp',
      businessHours: [{ day: 1, from: '08:00', to: '17:00' }],
      pollId: null,
    });
    await t
      .http()
      .put(`/api/attention-lines/${created.id}`)
      .set(bearer(adminA))
      .send(line({ name: 'Sales WA', internal: true }))
      .expect(200);
    const update = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: created.id, action: 'update' });
    expect(update.before).toMatchObject({ internal: false });
    expect(update.after).toMatchObject({ internal: true });
    await t.http().delete(`/api/attention-lines/${created.id}`).set(bearer(adminA)).expect(200);
    await t.http().get(`/api/attention-lines/${created.id}`).set(bearer(adminA)).expect(404);
    expect(
      (await t.dataSource.getRepository(AttentionLine).findOneOrFail({ where: { id: created.id }, withDeleted: true })).deletedAt,
    ).not.toBeNull();
  });

  it('refuses missing required fields, unknown channels and backwards business hours', async () => {
    const missing = await t.http().post('/api/attention-lines').set(bearer(adminA)).send({}).expect(400);
    expect(Object.keys(missing.body.data.fields).sort()).toEqual(['channel', 'name', 'type']);
    const bad = await t
      .http()
      .post('/api/attention-lines')
      .set(bearer(adminA))
      .send(line({ channel: 'Fax', businessHours: [{ day: 2, from: '18:00', to: '08:00' }] }))
      .expect(400);
    expect(Object.keys(bad.body.data.fields).sort()).toEqual(['businessHours', 'channel']);
  });

  it('keeps a line’s routing settings: defaults, saved values where routing reads them, and refused bad values', async () => {
    const created = (await t.http().post('/api/attention-lines').set(bearer(adminA)).send(line()).expect(200)).body.data;
    // Not sent: the longest-idle agent, priority 0, the account's maximum queue wait.
    expect(created).toMatchObject({ routingPolicy: 'longest-idle', priority: 0, queueTimeoutSeconds: null });
    const routing = async () =>
      (await t.dataSource.query(
        `SELECT routing_policy, priority, queue_timeout_seconds FROM attention_line_routing WHERE attention_line_id = $1`,
        [created.id],
      )) as { routing_policy: string; priority: number; queue_timeout_seconds: number | null }[];
    expect(await routing()).toEqual([{ routing_policy: 'longest-idle', priority: 0, queue_timeout_seconds: null }]);

    const settings = { routingPolicy: 'least-occupied', priority: 7, queueTimeoutSeconds: 120 };
    const updated = (
      await t
        .http()
        .put(`/api/attention-lines/${created.id}`)
        .set(bearer(adminA))
        .send(line({ name: created.name, ...settings }))
        .expect(200)
    ).body.data;
    expect(updated).toMatchObject(settings);
    expect((await t.http().get(`/api/attention-lines/${created.id}`).set(bearer(adminA)).expect(200)).body.data).toMatchObject(settings);
    const listed = (await t.http().get('/api/attention-lines').query({ q: created.name }).set(bearer(adminA)).expect(200)).body.data.items;
    expect(listed).toEqual([expect.objectContaining({ id: created.id, ...settings })]);
    expect(await routing()).toEqual([{ routing_policy: 'least-occupied', priority: 7, queue_timeout_seconds: 120 }]);
    const audit = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: created.id, action: 'update' });
    expect(audit.before).toMatchObject({ routingPolicy: 'longest-idle', priority: 0, queueTimeoutSeconds: null });
    expect(audit.after).toMatchObject(settings);

    for (const [field, value] of [
      ['routingPolicy', 'random'],
      ['priority', 10],
      ['priority', -1],
      ['queueTimeoutSeconds', 10],
      ['queueTimeoutSeconds', 100_000],
    ] as const) {
      const refused = await t
        .http()
        .put(`/api/attention-lines/${created.id}`)
        .set(bearer(adminA))
        .send(line({ name: created.name, ...settings, [field]: value }))
        .expect(400);
      expect(Object.keys(refused.body.data.fields)).toEqual([field]);
    }
    const fractional = await t
      .http()
      .put(`/api/attention-lines/${created.id}`)
      .set(bearer(adminA))
      .send(line({ name: created.name, ...settings, priority: 1.5 }))
      .expect(400);
    expect(fractional.body.errorMessage).toContain('priority');
    // Nothing of the refused calls was stored.
    expect(await routing()).toEqual([{ routing_policy: 'least-occupied', priority: 7, queue_timeout_seconds: 120 }]);
  });

  it('keeps a line’s blended-agent rules: none by default, saved where routing reads them, out-of-range refused', async () => {
    const created = (await t.http().post('/api/attention-lines').set(bearer(adminA)).send(line()).expect(200)).body.data;
    expect(created).toMatchObject({ chatsDuringCall: 0, offerCallsWithChats: false });
    const blended = { chatsDuringCall: 2, offerCallsWithChats: true };
    const updated = (
      await t
        .http()
        .put(`/api/attention-lines/${created.id}`)
        .set(bearer(adminA))
        .send(line({ name: created.name, ...blended }))
        .expect(200)
    ).body.data;
    expect(updated).toMatchObject(blended);
    expect((await t.http().get(`/api/attention-lines/${created.id}`).set(bearer(adminA)).expect(200)).body.data).toMatchObject(blended);
    const stored = async () =>
      (await t.dataSource.query(
        `SELECT chats_during_call, offer_calls_with_chats FROM attention_line_routing WHERE attention_line_id = $1`,
        [created.id],
      )) as { chats_during_call: number; offer_calls_with_chats: boolean }[];
    expect(await stored()).toEqual([{ chats_during_call: 2, offer_calls_with_chats: true }]);
    for (const value of [-1, 6, 1.5]) {
      const refused = await t
        .http()
        .put(`/api/attention-lines/${created.id}`)
        .set(bearer(adminA))
        .send(line({ name: created.name, ...blended, chatsDuringCall: value }))
        .expect(400);
      expect(Object.keys(refused.body.data.fields)).toEqual(['chatsDuringCall']);
    }
    expect(await stored()).toEqual([{ chats_during_call: 2, offer_calls_with_chats: true }]);
  });

  it("links the tenant's own poll and campaign, and refuses another tenant's as unknown", async () => {
    const campaign = (
      await t
        .http()
        .post('/api/campaigns')
        .set(bearer(adminA))
        .send({
          name: 'Linked',
          description: 'd',
          fromDate: '2026-01-01',
          toDate: '2026-12-31',
          identifier: 'LNK',
          allowedChatsPerAgent: 2,
        })
        .expect(200)
    ).body.data;
    const poll = (
      await t
        .http()
        .post('/api/polls')
        .set(bearer(adminA))
        .send({ name: 'After chat', lowerRank: 50, upperRank: 50, active: true, questions: [{ text: 'Rate us', responseType: 'scale' }] })
        .expect(200)
    ).body.data;
    const linked = (
      await t
        .http()
        .post('/api/attention-lines')
        .set(bearer(adminA))
        .send(line({ pollId: poll.id, campaignId: campaign.id }))
        .expect(200)
    ).body.data;
    expect(linked).toMatchObject({ pollId: poll.id, campaignId: campaign.id });
    const foreign = await t
      .http()
      .post('/api/attention-lines')
      .set(bearer(adminB))
      .send(line({ pollId: poll.id, campaignId: campaign.id }))
      .expect(400);
    expect(Object.keys(foreign.body.data.fields).sort()).toEqual(['campaignId', 'pollId']);
    expect(foreign.body.errorMessage).toContain('pollId has unknown values');
  });

  it("answers 404 for another tenant's line and 403 for an agent", async () => {
    const other = (await t.http().post('/api/attention-lines').set(bearer(adminB)).send(line()).expect(200)).body.data;
    await t.http().get(`/api/attention-lines/${other.id}`).set(bearer(adminA)).expect(404);
    await t.http().put(`/api/attention-lines/${other.id}`).set(bearer(adminA)).send(line()).expect(404);
    await t.http().delete(`/api/attention-lines/${other.id}`).set(bearer(adminA)).expect(404);
    await t.http().post('/api/attention-lines').set(bearer(agentA)).send(line()).expect(403);
  });

  it('pages and filters on the server', async () => {
    await t
      .http()
      .post('/api/attention-lines')
      .set(bearer(adminA))
      .send(line({ name: 'zz-filter-1', channel: 'Email' }))
      .expect(200);
    const page = await t.http().get('/api/attention-lines').query({ q: 'zz-filter', sortField: 'channel' }).set(bearer(adminA)).expect(200);
    expect(page.body.data.items.map((l: { name: string }) => l.name)).toEqual(['zz-filter-1']);
  });
});
