import { randomUUID } from 'node:crypto';
import type { DialerCampaignView, Envelope, OutboundCallView, OutboundTemplateView, Page, TemplateTestResult } from '@centralita/contracts';
import { createUser, twoTenants, type TwoTenants } from './support/factories';
import { ALWAYS_OPEN, createPhoneList } from './support/outbound';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

type Fields = { fields: Record<string, string[]>; issues: { field: string; key: string }[] };

const RENEWAL = {
  name: 'Renewal script',
  description: 'Contract renewals',
  script: 'Hello {{customerName}}, this is about {{offer}}. We will call {{phone}} again if needed.',
  parameters: [
    { key: 'customerName', label: 'Customer', source: 'name', value: '', defaultValue: 'customer' },
    { key: 'offer', label: 'Offer', source: 'fixed', value: '20% off for a year', defaultValue: '' },
    { key: 'phone', label: 'Phone', source: 'phone', value: '', defaultValue: '' },
  ],
};

describe('outbound campaign templates API (e2e)', () => {
  let t: TestApp;
  let f: TwoTenants;
  let listA: string;
  let listB: string;

  beforeAll(async () => {
    t = await startTestApp();
    f = await twoTenants(t);
    listA = await createPhoneList(t.dataSource, f.tenantA, [
      { phone: '+34917000001', name: 'Ana Ruiz' },
      // No name: the default fills in.
      { phone: '+34917000002' },
    ]);
    listB = await createPhoneList(t.dataSource, f.tenantB, [{ phone: '+34917000009', name: 'Other tenant' }]);
  });
  afterAll(() => t.close());

  const create = (token: string, body: object) => t.http().post('/api/outbound/templates').set(bearer(token)).send(body);
  const created = async (body: object = RENEWAL): Promise<OutboundTemplateView> => {
    const response = await create(f.adminA, body);
    expect(response.status).toBe(200);
    return (response.body as Envelope<OutboundTemplateView>).data!;
  };
  const entryOf = async (listId: string, phone: string) =>
    (
      (await t.dataSource.query(`SELECT id FROM phone_list_entries WHERE list_id = $1 AND phone = $2`, [listId, phone])) as {
        id: string;
      }[]
    )[0].id;

  it('validates the body, names the fields and the problem, and stores nothing', async () => {
    const response = await create(f.adminA, {
      name: '',
      script: 'Hi {{customerName}}, about {{plan}}',
      parameters: [
        { key: 'customerName', label: 'Customer', source: 'name', value: '', defaultValue: '' },
        { key: 'customerName', label: 'Again', source: 'phone', value: '', defaultValue: '' },
        { key: 'city', label: 'City', source: 'email', value: '', defaultValue: '' },
      ],
    });
    expect(response.status).toBe(400);
    const body = response.body as Envelope<Fields>;
    expect(body.errorCode).toBe('validation');
    expect(body.data!.fields).toMatchObject({
      name: ['name is required'],
      script: ['script uses {{plan}}, which is not a declared parameter'],
      'parameters.1.key': ["parameters.1.key 'customerName' is declared twice"],
      'parameters.2.key': ["parameters.2.key 'city' is not used in the script"],
    });
    expect(body.data!.fields['parameters.2.source'][0]).toContain('must be one of name, phone, fixed');
    expect(body.data!.issues).toContainEqual({ field: 'script', key: 'placeholderUndeclared', values: { key: 'plan' } });
    // Wrong types are refused by the DTO before the rules.
    expect((await create(f.adminA, { ...RENEWAL, parameters: 'x' })).status).toBe(400);
    expect((await create(f.adminA, { ...RENEWAL, extra: 1 })).status).toBe(400);
    const [{ n }] = (await t.dataSource.query(`SELECT count(*)::int AS n FROM outbound_templates WHERE tenant_id = $1`, [
      f.tenantA.client.id,
    ])) as { n: number }[];
    expect(n).toBe(0);
  });

  it('creates, lists, searches, updates; names are unique per tenant; agents get 403 and other tenants 404', async () => {
    const template = await created();
    expect(template).toMatchObject({ name: 'Renewal script', campaignCount: 0, parameters: RENEWAL.parameters });

    const clash = await create(f.adminA, { ...RENEWAL, name: 'renewal SCRIPT' });
    expect(clash.status).toBe(409);
    expect((clash.body as Envelope<Fields>).data!.fields.name).toEqual(['name is already used by another outbound template']);
    // Another tenant may use the same name.
    expect((await create(f.adminB, RENEWAL)).status).toBe(200);

    const page = (await t.http().get('/api/outbound/templates?q=renewals').set(bearer(f.adminA))).body as Envelope<
      Page<OutboundTemplateView>
    >;
    expect(page.data!.items.map((item) => item.id)).toEqual([template.id]);
    expect((await t.http().get('/api/outbound/templates?sortField=script').set(bearer(f.adminA))).status).toBe(400);

    const updated = await t
      .http()
      .put(`/api/outbound/templates/${template.id}`)
      .set(bearer(f.adminA))
      .send({ name: 'Renewal script v2', script: `${RENEWAL.script} Bye.` });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Renewal script v2', description: 'Contract renewals' });
    const badEdit = await t
      .http()
      .put(`/api/outbound/templates/${template.id}`)
      .set(bearer(f.adminA))
      .send({ script: 'Hello {{customerName}}' });
    expect(badEdit.status).toBe(400);
    expect(Object.keys((badEdit.body as Envelope<Fields>).data!.fields)).toEqual(['parameters.1.key', 'parameters.2.key']);

    expect((await create(f.agentA, RENEWAL)).status).toBe(403);
    expect((await t.http().get('/api/outbound/templates').set(bearer(f.agentA))).status).toBe(403);
    for (const [method, path] of [
      ['get', ''],
      ['put', ''],
      ['delete', ''],
      ['post', '/test'],
    ] as const) {
      const response = await t.http()[method](`/api/outbound/templates/${template.id}${path}`).set(bearer(f.adminB)).send({});
      expect(response.status).toBe(404);
    }
  });

  it('test-sends for a phone-list row, an outbound contact or sample values, answering the missing parameters', async () => {
    const template = await created({ ...RENEWAL, name: 'Test send' });
    const test = (body: object) => t.http().post(`/api/outbound/templates/${template.id}/test`).set(bearer(f.adminA)).send(body);

    const forRow = (await test({ contactId: await entryOf(listA, '+34917000001') })).body as Envelope<TemplateTestResult>;
    expect(forRow.data).toMatchObject({
      text: 'Hello Ana Ruiz, this is about 20% off for a year. We will call +34917000001 again if needed.',
      missing: [],
      contact: { name: 'Ana Ruiz', phone: '+34917000001' },
    });

    const noName = (await test({ contactId: await entryOf(listA, '+34917000002') })).body as Envelope<TemplateTestResult>;
    expect(noName.data!.text).toBe('Hello customer, this is about 20% off for a year. We will call +34917000002 again if needed.');

    const samples = (await test({ values: { customerName: 'Sample' } })).body as Envelope<TemplateTestResult>;
    expect(samples.data).toMatchObject({
      text: 'Hello Sample, this is about 20% off for a year. We will call {{phone}} again if needed.',
      missing: ['phone'],
      contact: null,
    });

    const unknownKey = await test({ values: { city: 'Madrid' } });
    expect(unknownKey.status).toBe(400);
    expect((unknownKey.body as Envelope<Fields>).data!.fields.values).toEqual(['values has unknown values: city']);
    // Another tenant's row, or no row at all, is an unknown contact.
    for (const contactId of [await entryOf(listB, '+34917000009'), randomUUID()]) {
      const response = await test({ contactId });
      expect(response.status).toBe(400);
      expect(Object.keys((response.body as Envelope<Fields>).data!.fields)).toEqual(['contactId']);
    }
    expect((await test({ contactId: 'not-a-uuid' })).status).toBe(400);
    // Nothing stored: the template is unchanged.
    expect((await t.http().get(`/api/outbound/templates/${template.id}`).set(bearer(f.adminA))).body.data.updatedAt).toBe(
      template.updatedAt,
    );
  });

  it('sets and clears the template of a draft campaign on edit', async () => {
    const template = await created({ ...RENEWAL, name: 'Edit script' });
    const draft = (
      await t.http().post('/api/outbound/campaigns').set(bearer(f.adminA)).send({ name: 'Draft', phoneListId: listA, mode: 'progressive' })
    ).body.data as DialerCampaignView;
    expect(draft.templateId).toBeNull();
    // The campaign form sends the whole input back.
    const strip = ({ id: _i, status: _s, version: _v, phoneListName: _p, createdAt: _c, updatedAt: _u, ...input }: DialerCampaignView) =>
      input;
    const edit = (body: object) =>
      t
        .http()
        .put(`/api/outbound/campaigns/${draft.id}`)
        .set(bearer(f.adminA))
        .send({ ...strip(draft), ...body });
    expect((await edit({ templateId: template.id })).body.data.templateId).toBe(template.id);
    expect((await t.http().get(`/api/outbound/templates/${template.id}`).set(bearer(f.adminA))).body.data.campaignCount).toBe(1);
    expect((await edit({ templateId: null })).body.data.templateId).toBeNull();
  });

  it("campaigns pick the tenant's own template; the agent's preview and screen pop show the script; delete detaches", async () => {
    const template = await created({ ...RENEWAL, name: 'Preview script' });
    const other = ((await create(f.adminB, { ...RENEWAL, name: 'B only' })).body as Envelope<OutboundTemplateView>).data!;
    const campaign = (body: object) => t.http().post('/api/outbound/campaigns').set(bearer(f.adminA)).send(body);

    const cross = await campaign({ name: 'Cross', phoneListId: listA, mode: 'preview', templateId: other.id });
    expect(cross.status).toBe(400);
    expect(Object.keys((cross.body as Envelope<Fields>).data!.fields)).toEqual(['templateId']);

    const made = await campaign({
      name: 'Scripted',
      phoneListId: listA,
      mode: 'preview',
      callingWindows: ALWAYS_OPEN,
      templateId: template.id,
    });
    expect(made.status).toBe(200);
    const view = (made.body as Envelope<DialerCampaignView>).data!;
    expect(view.templateId).toBe(template.id);
    expect((await t.http().get(`/api/outbound/templates/${template.id}`).set(bearer(f.adminA))).body.data.campaignCount).toBe(1);
    // The test send also takes one of the campaign's outbound contacts.
    const [contact] = (await t.dataSource.query(`SELECT id FROM outbound_contacts WHERE campaign_id = $1 AND phone = '+34917000001'`, [
      view.id,
    ])) as { id: string }[];
    const viaContact = await t
      .http()
      .post(`/api/outbound/templates/${template.id}/test`)
      .set(bearer(f.adminA))
      .send({ contactId: contact.id });
    expect(viaContact.body.data.contact).toEqual({ name: 'Ana Ruiz', phone: '+34917000001' });
    expect((await t.http().post(`/api/outbound/campaigns/${view.id}/start`).set(bearer(f.adminA))).status).toBe(200);

    // The agent's preview record carries the script rendered for that contact.
    const agent = await createUser(t.dataSource, f.tenantA, { role: 'AGENT' });
    const token = (await login(t, agent.email, agent.password)).accessToken;
    const record = (await t.http().post('/api/outbound/agent/preview').set(bearer(token))).body.data as {
      callId: string;
      phone: string;
      script: { templateName: string; text: string; missing: string[] };
    };
    const expectedName = record.phone === '+34917000001' ? 'Ana Ruiz' : 'customer';
    expect(record.script).toMatchObject({
      templateName: 'Preview script',
      text: `Hello ${expectedName}, this is about 20% off for a year. We will call ${record.phone} again if needed.`,
      missing: [],
    });

    // The connected call's screen pop (GET /agent/call) renders it too. The call row is written the
    // way the outbound host leaves a connected call; dialing it for real is the dialer suite's job.
    const [row] = (await t.dataSource.query(`SELECT id, phone FROM outbound_contacts WHERE campaign_id = $1 AND phone = '+34917000002'`, [
      view.id,
    ])) as { id: string; phone: string }[];
    const [agentUser] = (await t.dataSource.query(`SELECT id FROM users WHERE email = $1`, [agent.email])) as { id: string }[];
    const callId = randomUUID();
    await t.dataSource.query(
      `INSERT INTO outbound_calls (id, tenant_id, campaign_id, contact_id, phone, attempt, status, snapshot, version, last_event, agent_id, created_at, connected_at)
       VALUES ($1, $2, $3, $4, $5, 1, 'connected', '{}', 1, 'call.connected', $6, now(), now())`,
      [callId, f.tenantA.client.id, view.id, row.id, row.phone, agentUser.id],
    );
    const pop = (await t.http().get('/api/outbound/agent/call').set(bearer(token))).body as Envelope<
      OutboundCallView & { campaignName: string }
    >;
    expect(pop.data).toMatchObject({ id: callId, campaignName: 'Scripted' });
    expect(pop.data!.script).toMatchObject({
      templateId: template.id,
      text: 'Hello customer, this is about 20% off for a year. We will call +34917000002 again if needed.',
    });

    // Deleting the template detaches it: the campaign keeps going without a script.
    const removed = await t.http().delete(`/api/outbound/templates/${template.id}`).set(bearer(f.adminA));
    expect(removed.body.data).toEqual({ deleted: true, detachedCampaigns: 1 });
    expect((await t.http().get(`/api/outbound/campaigns/${view.id}`).set(bearer(f.adminA))).body.data.templateId).toBeNull();
    expect((await t.http().get('/api/outbound/agent/call').set(bearer(token))).body.data.script).toBeNull();
    expect((await t.http().get(`/api/outbound/templates/${template.id}`).set(bearer(f.adminA))).status).toBe(404);
    // A deleted template cannot be picked, and its name is free again.
    const stale = await campaign({ name: 'Stale', phoneListId: listA, mode: 'preview', templateId: template.id });
    expect(stale.status).toBe(400);
    expect(Object.keys((stale.body as Envelope<Fields>).data!.fields)).toEqual(['templateId']);
    expect((await create(f.adminA, { ...RENEWAL, name: 'Preview script' })).status).toBe(200);
    const audit = (await t.dataSource.query(
      `SELECT action, before FROM audit_log WHERE entity_type = 'outbound_template' AND entity_id = $1 ORDER BY created_at`,
      [template.id],
    )) as { action: string; before: { detachedCampaignIds?: string[] } | null }[];
    expect(audit.map((entry) => entry.action)).toEqual(['create', 'delete']);
    expect(audit[1].before!.detachedCampaignIds).toEqual([view.id]);
  });
});
