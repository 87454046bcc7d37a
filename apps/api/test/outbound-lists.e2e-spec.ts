import type { DialerCampaignView, DoNotCallEntry, Envelope, OutboundCallback, OutboundFormOptions, Page } from '@centralita/contracts';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { createPhoneList } from './support/outbound';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

/**
 * The console's outbound lists: do-not-call (search, scope and campaign filters, server paging),
 * callbacks (names, campaign / agent / due filters, agents see only their own, cancel) and the
 * campaign form's trunk and agent pickers.
 */
describe('outbound lists and form options API (e2e)', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  let adminA: string;
  let adminB: string;
  let agentOneToken: string;
  let agentOneId: string;
  let agentTwoId: string;
  let adminName: string;
  let campaignA: DialerCampaignView;
  let otherCampaignA: DialerCampaignView;
  let campaignB: DialerCampaignView;
  let trunkA: string;
  let trunkB: string;

  const data = <T>(response: { body: unknown }) => (response.body as Envelope<T>).data!;

  const insertTrunk = async (tenant: TestTenant, name: string): Promise<string> => {
    const [row] = (await t.dataSource.query(
      `INSERT INTO trunks (client_id, name, host, transport, max_concurrent_calls, caller_id) VALUES ($1, $2, 'sip.example.test', 'udp', 5, '+34910000000') RETURNING id`,
      [tenant.client.id, name],
    )) as { id: string }[];
    return row.id;
  };

  beforeAll(async () => {
    t = await startTestApp();
    tenantA = await createTenant(t.dataSource);
    tenantB = await createTenant(t.dataSource);
    const admin = await createUser(t.dataSource, tenantA, { role: 'ADMIN', name: 'Ada Admin' });
    adminName = admin.user.name;
    const adminOfB = await createUser(t.dataSource, tenantB, { role: 'ADMIN' });
    const one = await createUser(t.dataSource, tenantA, { role: 'AGENT', name: 'Olga Agent' });
    const two = await createUser(t.dataSource, tenantA, { role: 'AGENT', name: 'Tomas Agent' });
    await createUser(t.dataSource, tenantA, { role: 'AGENT', name: 'Gone Agent', active: false });
    await createUser(t.dataSource, tenantB, { role: 'AGENT', name: 'Other Tenant Agent' });
    agentOneId = one.user.id;
    agentTwoId = two.user.id;
    adminA = (await login(t, admin.email, admin.password)).accessToken;
    adminB = (await login(t, adminOfB.email, adminOfB.password)).accessToken;
    agentOneToken = (await login(t, one.email, one.password)).accessToken;
    trunkA = await insertTrunk(tenantA, 'Carrier A');
    trunkB = await insertTrunk(tenantB, 'Carrier of B');

    const listA = await createPhoneList(t.dataSource, tenantA, [
      { phone: '+34912000001', name: 'Ana Contact' },
      { phone: '+34912000002', name: 'Luis Contact' },
      { phone: '+34912000003', name: 'Marta Contact' },
    ]);
    const listB = await createPhoneList(t.dataSource, tenantB, [{ phone: '+34912000009' }]);
    const create = async (token: string, body: object) => {
      const response = await t.http().post('/api/outbound/campaigns').set(bearer(token)).send(body);
      expect(response.status).toBe(200);
      return data<DialerCampaignView>(response);
    };
    campaignA = await create(adminA, { name: 'Renewals', phoneListId: listA, mode: 'progressive' });
    otherCampaignA = await create(adminA, { name: 'Winback', phoneListId: listA, mode: 'preview' });
    campaignB = await create(adminB, { name: 'Of B', phoneListId: listB, mode: 'progressive' });
  });
  afterAll(() => t.close());

  describe('campaign form options', () => {
    it("offers the tenant's trunks and the users who handle conversations; agents get 403", async () => {
      const response = await t.http().get('/api/outbound/form-options').set(bearer(adminA));
      expect(response.status).toBe(200);
      const options = data<OutboundFormOptions>(response);
      expect(options.trunks).toEqual([{ id: trunkA, name: 'Carrier A', callerId: '+34910000000', active: true }]);
      // The tenant's phone lists, for supervisors who cannot read /api/phone-lists.
      expect(options.phoneLists.map((list) => list.id)).toContain(campaignA.phoneListId);
      const foreignLists = data<OutboundFormOptions>(await t.http().get('/api/outbound/form-options').set(bearer(adminB))).phoneLists;
      expect(foreignLists.map((list) => list.id)).not.toContain(campaignA.phoneListId);
      const agents = options.agents.map((agent) => `${agent.name}:${agent.active}`);
      expect(agents).toEqual(expect.arrayContaining(['Olga Agent:true', 'Tomas Agent:true', 'Gone Agent:false']));
      expect(agents.join()).not.toContain('Other Tenant Agent');
      // Active users first, so the picker lists the ones that can be chosen before the history.
      expect(options.agents.findIndex((agent) => !agent.active)).toBeGreaterThan(options.agents.findIndex((agent) => agent.active));
      expect((await t.http().get('/api/outbound/form-options').set(bearer(agentOneToken))).status).toBe(403);
    });

    it("stores the picked trunk and agents; another tenant's trunk or agent answers 400 naming the field", async () => {
      const put = (body: object) => t.http().put(`/api/outbound/campaigns/${campaignA.id}`).set(bearer(adminA)).send(body);
      const foreignTrunk = await put({ trunkId: trunkB });
      expect(foreignTrunk.status).toBe(400);
      expect(JSON.stringify(foreignTrunk.body)).toContain('trunkId');
      const otherAgents = data<OutboundFormOptions>(await t.http().get('/api/outbound/form-options').set(bearer(adminB))).agents;
      const foreignAgent = await put({ agentIds: [otherAgents[0].id] });
      expect(foreignAgent.status).toBe(400);
      expect(JSON.stringify(foreignAgent.body)).toContain('agentIds');

      const saved = await put({ trunkId: trunkA, agentIds: [agentOneId, agentTwoId] });
      expect(saved.status).toBe(200);
      const reread = data<DialerCampaignView>(await t.http().get(`/api/outbound/campaigns/${campaignA.id}`).set(bearer(adminA)));
      expect(reread.trunkId).toBe(trunkA);
      expect([...reread.agentIds].sort()).toEqual([agentOneId, agentTwoId].sort());
      const cleared = data<DialerCampaignView>(await put({ trunkId: null, agentIds: [] }));
      expect(cleared).toMatchObject({ trunkId: null, agentIds: [] });
    });
  });

  describe('do-not-call list', () => {
    const add = (token: string, body: object) => t.http().post('/api/outbound/dnc').set(bearer(token)).send(body);
    const list = async (query: string, token = adminA) => {
      const response = await t.http().get(`/api/outbound/dnc${query}`).set(bearer(token));
      expect(response.status).toBe(200);
      return data<Page<DoNotCallEntry>>(response);
    };
    let tenantWide: DoNotCallEntry;
    let perCampaign: DoNotCallEntry;

    beforeAll(async () => {
      tenantWide = data<DoNotCallEntry>(await add(adminA, { phone: '+34 600 111 222', reason: 'Asked by phone' }));
      perCampaign = data<DoNotCallEntry>(await add(adminA, { phone: '+34600333444', campaignId: campaignA.id }));
      await add(adminA, { phone: '+34600555666', campaignId: otherCampaignA.id });
      await add(adminB, { phone: '+34600111222' });
    });

    it('answers the added entry with its scope and who added it', () => {
      expect(tenantWide).toMatchObject({
        phone: '+34600111222',
        campaignId: null,
        campaignName: null,
        reason: 'Asked by phone',
        createdByName: adminName,
      });
      expect(perCampaign).toMatchObject({ phone: '+34600333444', campaignId: campaignA.id, campaignName: 'Renewals', reason: null });
    });

    it('refuses a bad number, an unknown campaign and another tenant’s campaign, storing nothing', async () => {
      const bad = await add(adminA, { phone: '600 11' });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('phone');
      expect((await add(adminA, { phone: '+34600777888', campaignId: campaignB.id })).status).toBe(404);
      expect((await add(adminA, { phone: '+34600777888', campaignId: 'nope' })).status).toBe(400);
      expect((await list('?q=600777888')).total).toBe(0);
    });

    it('searches by number with or without separators, filters by campaign and scope, and pages on the server', async () => {
      expect((await list('?q=600 111')).items.map((entry) => entry.id)).toEqual([tenantWide.id]);
      expect((await list('?q=%2B34600333')).items.map((entry) => entry.id)).toEqual([perCampaign.id]);
      expect((await list(`?campaignId=${campaignA.id}`)).items.map((entry) => entry.phone)).toEqual(['+34600333444']);
      expect((await list('?scope=tenant')).items.map((entry) => entry.phone)).toEqual(['+34600111222']);
      expect((await list('?scope=campaign')).items.map((entry) => entry.phone).sort()).toEqual(['+34600333444', '+34600555666']);

      const first = await list('?pageSize=2&page=1');
      const second = await list('?pageSize=2&page=2');
      expect(first.total).toBe(3);
      expect(first.items).toHaveLength(2);
      expect(second.items).toHaveLength(1);
      expect(new Set([...first.items, ...second.items].map((entry) => entry.id)).size).toBe(3);
      // Newest first.
      expect(first.items[0].phone).toBe('+34600555666');

      expect((await t.http().get('/api/outbound/dnc?scope=everything').set(bearer(adminA))).status).toBe(400);
      expect((await t.http().get('/api/outbound/dnc').set(bearer(agentOneToken))).status).toBe(403);
      // Tenant B sees only its own entry.
      expect((await list('', adminB)).items.map((entry) => entry.phone)).toEqual(['+34600111222']);
    });

    it('removes an entry; another tenant gets 404', async () => {
      expect((await t.http().delete(`/api/outbound/dnc/${perCampaign.id}`).set(bearer(adminB))).status).toBe(404);
      expect((await t.http().delete(`/api/outbound/dnc/${perCampaign.id}`).set(bearer(adminA))).status).toBe(200);
      expect((await list(`?campaignId=${campaignA.id}`)).total).toBe(0);
    });
  });

  describe('callbacks', () => {
    let overdue: string;
    let upcoming: string;
    let cancelled: string;

    const book = async (campaign: DialerCampaignView, phone: string, agentId: string, dueInMs: number, status = 'pending') => {
      const [row] = (await t.dataSource.query(
        `INSERT INTO outbound_callbacks (tenant_id, campaign_id, contact_id, due_at, agent_id, created_by, status)
         SELECT tenant_id, campaign_id, id, $3, $4, $4, $5 FROM outbound_contacts WHERE campaign_id = $1 AND phone = $2 RETURNING id`,
        [campaign.id, phone, new Date(Date.now() + dueInMs), agentId, status],
      )) as { id: string }[];
      return row.id;
    };
    const callbacks = async (query: string, token = adminA) => {
      const response = await t.http().get(`/api/outbound/callbacks${query}`).set(bearer(token));
      expect(response.status).toBe(200);
      return data<OutboundCallback[]>(response);
    };

    beforeAll(async () => {
      overdue = await book(campaignA, '+34912000001', agentOneId, -3_600_000);
      upcoming = await book(otherCampaignA, '+34912000002', agentTwoId, 3_600_000);
      cancelled = await book(campaignA, '+34912000003', agentOneId, 7_200_000, 'cancelled');
    });

    it('lists callbacks by due time with contact, campaign and agent names', async () => {
      const all = await callbacks('');
      expect(all.map((row) => row.id)).toEqual([overdue, upcoming, cancelled]);
      expect(all[0]).toMatchObject({
        contactName: 'Ana Contact',
        phone: '+34912000001',
        campaignId: campaignA.id,
        campaignName: 'Renewals',
        agentId: agentOneId,
        agentName: 'Olga Agent',
        status: 'pending',
      });
      expect((await callbacks('', adminB)).map((row) => row.id)).toEqual([]);
    });

    it('filters by campaign, agent, state and due time', async () => {
      const ids = async (query: string) => (await callbacks(query)).map((row) => row.id);
      expect(await ids(`?campaignId=${campaignA.id}`)).toEqual([overdue, cancelled]);
      expect(await ids(`?agentId=${agentTwoId}`)).toEqual([upcoming]);
      expect(await ids('?status=cancelled')).toEqual([cancelled]);
      expect(await ids('?due=overdue')).toEqual([overdue]);
      // Upcoming means still pending: the cancelled one (also in the future) is not upcoming.
      expect(await ids('?due=upcoming')).toEqual([upcoming]);
      expect(await ids('?mine=true')).toEqual([]);
      expect((await t.http().get('/api/outbound/callbacks?due=someday').set(bearer(adminA))).status).toBe(400);
      expect((await t.http().get('/api/outbound/callbacks?agentId=x').set(bearer(adminA))).status).toBe(400);
    });

    it('gives an agent only the callbacks they booked, whatever they ask for, and no cancel', async () => {
      const own = await callbacks(`?agentId=${agentTwoId}`, agentOneToken);
      expect(own.map((row) => row.id)).toEqual([overdue, cancelled]);
      expect((await callbacks('?mine=true&due=overdue', agentOneToken)).map((row) => row.id)).toEqual([overdue]);
      expect((await callbacks('', agentOneToken)).map((row) => row.id)).toEqual([overdue, cancelled]);
      expect((await t.http().delete(`/api/outbound/callbacks/${overdue}`).set(bearer(agentOneToken))).status).toBe(403);
    });

    it('cancels a pending callback once; another tenant or a finished one answers 404', async () => {
      expect((await t.http().delete(`/api/outbound/callbacks/${overdue}`).set(bearer(adminB))).status).toBe(404);
      expect((await t.http().delete(`/api/outbound/callbacks/${overdue}`).set(bearer(adminA))).status).toBe(200);
      expect((await t.http().delete(`/api/outbound/callbacks/${overdue}`).set(bearer(adminA))).status).toBe(404);
      const trail = (await t.dataSource.query(
        `SELECT action, after FROM audit_log WHERE entity_type = 'outbound_callback' AND entity_id = $1`,
        [overdue],
      )) as { action: string; after: { status: string } }[];
      expect(trail).toEqual([{ action: 'update', after: { status: 'cancelled' } }]);
      expect((await callbacks('?due=overdue')).map((row) => row.id)).toEqual([]);
      expect((await callbacks('?status=cancelled')).map((row) => row.id)).toEqual([overdue, cancelled]);
    });
  });
});
