import type { DialerCampaignView, Envelope, OutboundBoardView, Page } from '@centralita/contracts';
import { twoTenants, type TwoTenants } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { bearer, startTestApp, type TestApp } from './support/test-app';

describe('outbound campaigns API (e2e)', () => {
  let t: TestApp;
  let f: TwoTenants;
  let listA: string;
  let listB: string;

  beforeAll(async () => {
    t = await startTestApp();
    f = await twoTenants(t);
    listA = await createPhoneList(t.dataSource, f.tenantA, [
      { phone: '+34911000001', name: 'Ana' },
      { phone: '+34911000002', name: 'Luis' },
      // A row that escaped validation somehow: never becomes a contact.
      { phone: '0034-bad', name: 'Broken' },
    ]);
    listB = await createPhoneList(t.dataSource, f.tenantB, [{ phone: '+34911000009' }]);
  });
  afterAll(() => t.close());

  const create = (token: string, body: object) => t.http().post('/api/outbound/campaigns').set(bearer(token)).send(body);

  it('validates the body and names the fields', async () => {
    const response = await create(f.adminA, {
      name: '',
      mode: 'sideways',
      abandonCapPercent: 50,
      maxAttempts: 0,
      callingWindows: { mon: [{ from: '25:00', to: '10:00' }] },
    });
    expect(response.status).toBe(400);
    const fields = Object.keys((response.body as Envelope<{ fields: Record<string, string[]> }>).data!.fields);
    expect(fields).toEqual(expect.arrayContaining(['name', 'phoneListId', 'mode', 'abandonCapPercent', 'maxAttempts', 'callingWindows']));
  });

  it("refuses another tenant's phone list", async () => {
    const response = await create(f.adminA, { name: 'Cross', phoneListId: listB, mode: 'progressive' });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('phoneListId');
  });

  it('creates a draft with defaults and only valid numbers as contacts; agents get 403, other tenants 404', async () => {
    const response = await create(f.adminA, { name: 'Renewals', phoneListId: listA, mode: 'progressive', callingWindows: ALWAYS_OPEN });
    expect(response.status).toBe(200);
    const campaign = (response.body as Envelope<DialerCampaignView>).data!;
    expect(campaign).toMatchObject({ status: 'draft', abandonCapPercent: 3, abandonThresholdMs: 2000, maxAttempts: 3 });
    const contacts = (await t.dataSource.query(`SELECT phone FROM outbound_contacts WHERE campaign_id = $1 ORDER BY phone`, [
      campaign.id,
    ])) as {
      phone: string;
    }[];
    expect(contacts.map((c) => c.phone)).toEqual(['+34911000001', '+34911000002']);

    expect((await create(f.agentA, { name: 'X', phoneListId: listA, mode: 'progressive' })).status).toBe(403);
    expect((await t.http().get(`/api/outbound/campaigns/${campaign.id}`).set(bearer(f.adminB))).status).toBe(404);
    expect((await t.http().post(`/api/outbound/campaigns/${campaign.id}/start`).set(bearer(f.adminB))).status).toBe(404);
    expect((await t.http().get(`/api/outbound/campaigns/${campaign.id}/board`).set(bearer(f.agentA))).status).toBe(403);

    const page = (await t.http().get('/api/outbound/campaigns?q=renew').set(bearer(f.adminA))).body as Envelope<Page<DialerCampaignView>>;
    expect(page.data!.items.map((c) => c.id)).toContain(campaign.id);
    expect((await t.http().get('/api/outbound/campaigns?sortField=password').set(bearer(f.adminA))).status).toBe(400);
  });

  it('runs the campaign machine: start, pause, resume, cancel; illegal events answer 409 and are logged nowhere', async () => {
    const campaign = (await create(f.adminA, { name: 'Lifecycle', phoneListId: listA, mode: 'predictive', callingWindows: ALWAYS_OPEN }))
      .body.data as DialerCampaignView;
    const act = (action: string, body: object = {}) =>
      t.http().post(`/api/outbound/campaigns/${campaign.id}/${action}`).set(bearer(f.adminA)).send(body);

    const resumeDraft = await act('resume');
    expect(resumeDraft.status).toBe(409);
    expect(resumeDraft.body).toMatchObject({ errorCode: 'illegal_transition' });
    expect((resumeDraft.body as Envelope<null>).errorMessage).toContain('campaign.resumed is not allowed while the campaign is draft');

    expect((await act('start')).body.data.status).toBe('running');
    expect((await act('start')).status).toBe(409);
    expect((await act('pause', { reason: 'lunch' })).body.data.status).toBe('paused');
    expect((await act('resume')).body.data.status).toBe('running');
    expect((await act('cancel', { reason: 'budget' })).body.data.status).toBe('cancelled');
    expect((await act('resume')).status).toBe(409);
    expect((await act('explode')).status).toBe(404);

    const log = (await t.dataSource.query(
      `SELECT from_state, to_state, event, actor_kind FROM transition_log WHERE entity_type = 'dialer_campaign' AND entity_id = $1 ORDER BY version`,
      [campaign.id],
    )) as { from_state: string | null; to_state: string; event: string; actor_kind: string }[];
    expect(log.map((row) => `${row.from_state}>${row.to_state}`)).toEqual([
      'null>draft',
      'draft>running',
      'running>paused',
      'paused>running',
      'running>cancelled',
    ]);
    expect(log.slice(1).every((row) => row.actor_kind === 'supervisor')).toBe(true);
    // A cancelled campaign is history: no edits.
    expect((await t.http().put(`/api/outbound/campaigns/${campaign.id}`).set(bearer(f.adminA)).send({ name: 'Renamed' })).status).toBe(409);
  });

  it('schedules a draft with a window in the future; the schedule needs a start', async () => {
    const noStart = (await create(f.adminA, { name: 'No start', phoneListId: listA, mode: 'progressive' })).body.data as DialerCampaignView;
    expect((await t.http().post(`/api/outbound/campaigns/${noStart.id}/schedule`).set(bearer(f.adminA))).status).toBe(400);
    const from = new Date(Date.now() + 3_600_000).toISOString();
    const to = new Date(Date.now() + 7_200_000).toISOString();
    const campaign = (
      await create(f.adminA, { name: 'Later', phoneListId: listA, mode: 'progressive', scheduleFrom: from, scheduleTo: to })
    ).body.data as DialerCampaignView;
    const scheduled = await t.http().post(`/api/outbound/campaigns/${campaign.id}/schedule`).set(bearer(f.adminA));
    expect(scheduled.body.data).toMatchObject({ status: 'scheduled', scheduleFrom: from, scheduleTo: to });
    expect((await t.http().post(`/api/outbound/campaigns/${campaign.id}/cancel`).set(bearer(f.adminA))).body.data.status).toBe('cancelled');
  });

  it("changes a draft's dialing mode as a machine step: version bumped, one log row, snapshot and column agree", async () => {
    const campaign = (await create(f.adminA, { name: 'Mode change', phoneListId: listA, mode: 'progressive' })).body
      .data as DialerCampaignView;
    const edited = await t.http().put(`/api/outbound/campaigns/${campaign.id}`).set(bearer(f.adminA)).send({ mode: 'predictive' });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({ mode: 'predictive', status: 'draft', version: 2 });
    const state = async () =>
      (
        (await t.dataSource.query(`SELECT mode, version, snapshot FROM dialer_campaigns WHERE id = $1`, [campaign.id])) as {
          mode: string;
          version: number;
          snapshot: { context: { mode: string } };
        }[]
      )[0];
    const logRows = () =>
      t.dataSource.query(
        `SELECT from_state, to_state, event, actor_kind, actor_id, version FROM transition_log
          WHERE entity_type = 'dialer_campaign' AND entity_id = $1 ORDER BY version`,
        [campaign.id],
      ) as Promise<{ from_state: string; to_state: string; event: string; actor_kind: string; actor_id: string; version: number }[]>;
    expect(await state()).toMatchObject({ mode: 'predictive', version: 2, snapshot: { context: { mode: 'predictive' } } });
    expect((await logRows()).slice(1)).toEqual([
      {
        from_state: 'draft',
        to_state: 'draft',
        event: 'campaign.modeChanged',
        actor_kind: 'supervisor',
        actor_id: expect.any(String),
        version: 2,
      },
    ]);
    // An edit that leaves the mode alone is no machine step: no version, no log row.
    expect((await t.http().put(`/api/outbound/campaigns/${campaign.id}`).set(bearer(f.adminA)).send({ name: 'Renamed' })).status).toBe(200);
    expect((await state()).version).toBe(2);
    expect(await logRows()).toHaveLength(2);
  });

  it('serves the board and an empty results export', async () => {
    const campaign = (await create(f.adminA, { name: '=HYPERLINK("x")', phoneListId: listA, mode: 'progressive' })).body
      .data as DialerCampaignView;
    const board = (await t.http().get(`/api/outbound/campaigns/${campaign.id}/board`).set(bearer(f.adminA)))
      .body as Envelope<OutboundBoardView>;
    expect(board.data).toMatchObject({
      status: 'draft',
      callsInProgress: 0,
      remainingRecords: 2,
      abandonRatePercent: null,
      abandonCapPercent: 3,
    });
    const csv = await t.http().get(`/api/outbound/campaigns/${campaign.id}/results.csv`).set(bearer(f.adminA));
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    // Headed in the requester's language: Spanish by default, the console sends its own.
    expect(csv.text.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe(
      'Teléfono,Nombre,Intento,Estado,Resultado,Tipificación,Agente,Creada,Contestada,Finalizada',
    );
    const english = await t
      .http()
      .get(`/api/outbound/campaigns/${campaign.id}/results.csv`)
      .set(bearer(f.adminA))
      .set('Accept-Language', 'en');
    expect(english.text.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe(
      'Phone,Name,Attempt,Status,Outcome,Disposition,Agent,Created,Answered,Finished',
    );
  });

  it('keeps do-not-call entries per tenant and per campaign', async () => {
    const add = (token: string, body: object) => t.http().post('/api/outbound/dnc').set(bearer(token)).send(body);
    expect((await add(f.adminA, { phone: 'not a number' })).status).toBe(400);
    const entry = (await add(f.adminA, { phone: '+34 911 000 001', reason: 'asked' })).body.data as { id: string; phone: string };
    expect(entry.phone).toBe('+34911000001');
    expect((await add(f.adminA, { phone: '+34911000001' })).status).toBe(409);
    expect((await add(f.agentA, { phone: '+34911000003' })).status).toBe(403);
    expect((await t.http().delete(`/api/outbound/dnc/${entry.id}`).set(bearer(f.adminB))).status).toBe(404);
    const list = (await t.http().get('/api/outbound/dnc').set(bearer(f.adminA))).body as Envelope<Page<{ id: string }>>;
    expect(list.data!.items.map((item) => item.id)).toContain(entry.id);
    expect((await t.http().delete(`/api/outbound/dnc/${entry.id}`).set(bearer(f.adminA))).status).toBe(200);
  });

  it("answers the agent's outbound controls: waiting needs a login, no call means null", async () => {
    expect((await t.http().post('/api/outbound/agent/waiting').set(bearer(f.agentA))).status).toBe(404);
    expect((await t.http().post('/api/agent/presence/login').set(bearer(f.agentA)).send({})).status).toBe(200);
    const waiting = await t.http().post('/api/outbound/agent/waiting').set(bearer(f.agentA));
    expect(waiting.body.data.status).toBe('waitingOutboundCall');
    // Idempotent: waiting again keeps waiting.
    expect((await t.http().post('/api/outbound/agent/waiting').set(bearer(f.agentA))).body.data.status).toBe('waitingOutboundCall');
    expect((await t.http().post('/api/outbound/agent/preview').set(bearer(f.agentA))).status).toBe(404);
    expect((await t.http().get('/api/outbound/agent/call').set(bearer(f.agentA))).body.data).toBeNull();
    expect((await t.http().post(`/api/outbound/calls/00000000-0000-4000-8000-000000000000/hangup`).set(bearer(f.agentA))).status).toBe(404);
  });
});
