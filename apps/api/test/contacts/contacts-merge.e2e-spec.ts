import { randomBytes, randomUUID } from 'node:crypto';
import type { ContactPersonView, ContactSummary, Envelope, Page } from '@centralita/contracts';
import { twoTenants, type TestTenant, type TwoTenants } from '../support/factories';
import { createLine } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(30_000);

describe('Contacts: one person across channels (e2e)', () => {
  let t: TestApp;
  let fx: TwoTenants;
  let lineId: string;
  const tag = randomBytes(4).toString('hex');

  const contact = async (tenant: TestTenant, channel: string, name: string) => {
    const [row] = (await t.dataSource.query(
      `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [tenant.client.id, channel, `acct-${channel}`, `ext-${randomBytes(6).toString('hex')}`, name],
    )) as { id: string }[];
    return row.id;
  };
  const conversation = async (contactId: string, channel: string, daysAgo: number, status = 'Closed') => {
    const id = randomUUID();
    await t.dataSource.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, status, customer_name, snapshot, version, last_event, contact_id, created_at, closed_at)
       VALUES ($1, $2, $3, $4, $4, $5::text, 'Ana', jsonb_build_object('value', $5::text, 'context', '{}'::jsonb), 1, 'test', $6, now() - $7 * interval '1 day', $8)`,
      [id, fx.tenantA.client.id, channel, lineId, status, contactId, daysAgo, status === 'Closed' ? new Date() : null],
    );
    return id;
  };
  const person = async (id: string, token = fx.agentA) =>
    ((await t.http().get(`/api/contacts/${id}/person`).set(bearer(token)).expect(200)).body as Envelope<ContactPersonView>).data!;
  const merge = (id: string, other: string, token = fx.agentA) =>
    t.http().post(`/api/contacts/${id}/merge`).set(bearer(token)).send({ contactId: other });

  beforeAll(async () => {
    t = await startTestApp();
    fx = await twoTenants(t);
    lineId = await createLine(t.dataSource, fx.tenantA, `Contacts ${tag}`);
  });
  afterAll(() => t.close());

  it('merges identities into one person with a timeline across channels, and unmerges them with history', async () => {
    const whatsapp = await contact(fx.tenantA, 'whatsapp', `Ana ${tag}`);
    const telegram = await contact(fx.tenantA, 'telegram', `Ana P ${tag}`);
    const messenger = await contact(fx.tenantA, 'messenger', `A. Pérez ${tag}`);
    const older = await conversation(whatsapp, 'whatsapp', 3);
    const newer = await conversation(telegram, 'telegram', 1);
    const open = await conversation(messenger, 'messenger', 0, 'Active');

    const alone = await person(whatsapp);
    expect(alone).toMatchObject({ contactId: whatsapp, personId: null, identities: [{ id: whatsapp, channel: 'whatsapp' }] });
    expect(alone.timeline.map((entry) => entry.id)).toEqual([older]);

    const merged = (await merge(whatsapp, telegram).expect(200)).body as Envelope<ContactPersonView>;
    expect(merged.data!.personId).toEqual(expect.any(String));
    expect(merged.data!.identities.map((identity) => identity.id).sort()).toEqual([whatsapp, telegram].sort());
    expect(merged.data!.timeline.filter((entry) => entry.kind === 'conversation').map((entry) => entry.id)).toEqual([newer, older]);
    expect(merged.data!.history[0]).toMatchObject({
      action: 'merge',
      contactId: whatsapp,
      otherContactId: telegram,
      actorName: expect.any(String),
    });

    // The desk asks by conversation: the Telegram chat shows the same person.
    const byConversation = (await t.http().get(`/api/contacts/by-conversation/${newer}`).set(bearer(fx.agentA)).expect(200))
      .body as Envelope<ContactPersonView>;
    expect(byConversation.data!.personId).toBe(merged.data!.personId);

    // A third identity joins; merging two that are already one person is a 409.
    await merge(messenger, telegram).expect(200);
    const three = await person(whatsapp);
    expect(three.identities).toHaveLength(3);
    expect(three.timeline.filter((entry) => entry.kind === 'conversation').map((entry) => entry.id)).toEqual([open, newer, older]);
    const again = await merge(whatsapp, messenger).expect(409);
    expect((again.body as Envelope<null>).errorMessage).toMatch(/already the same person/);

    // Unmerge one: it is alone again, the other two stay together.
    const out = (await t.http().post(`/api/contacts/${messenger}/unmerge`).set(bearer(fx.agentA)).expect(200))
      .body as Envelope<ContactPersonView>;
    expect(out.data).toMatchObject({ personId: null, identities: [{ id: messenger }] });
    expect((await person(whatsapp)).identities).toHaveLength(2);
    // The last unmerge dissolves the person.
    await t.http().post(`/api/contacts/${telegram}/unmerge`).set(bearer(fx.agentA)).expect(200);
    const dissolved = await person(whatsapp);
    expect(dissolved).toMatchObject({ personId: null, identities: [{ id: whatsapp }] });
    expect(dissolved.history.map((event) => event.action)).toEqual(['unmerge', 'merge']);
    await t.http().post(`/api/contacts/${whatsapp}/unmerge`).set(bearer(fx.agentA)).expect(409);
  });

  it('answers null for a conversation without a contact (web chat), and 404 for another tenant', async () => {
    const id = randomUUID();
    await t.dataSource.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, status, customer_name, snapshot, version, last_event)
       VALUES ($1, $2, 'webchat', $3, $3, 'Closed', 'Ana', '{"value":"Closed","context":{}}'::jsonb, 1, 'test')`,
      [id, fx.tenantA.client.id, lineId],
    );
    const response = await t.http().get(`/api/contacts/by-conversation/${id}`).set(bearer(fx.agentA)).expect(200);
    expect(response.body).toMatchObject({ statusCode: 200, data: null });
    await t.http().get(`/api/contacts/by-conversation/${id}`).set(bearer(fx.adminB)).expect(404);
  });

  it('merges two persons into one when both already had identities', async () => {
    const [a1, a2, b1, b2] = await Promise.all(
      ['whatsapp', 'telegram', 'messenger', 'instagram'].map((ch) => contact(fx.tenantA, ch, `Bea ${tag}`)),
    );
    await merge(a1, a2).expect(200);
    await merge(b1, b2).expect(200);
    const all = (await merge(a2, b1).expect(200)).body as Envelope<ContactPersonView>;
    expect(all.data!.identities.map((identity) => identity.id).sort()).toEqual([a1, a2, b1, b2].sort());
    expect((await person(b2)).personId).toBe(all.data!.personId);
  });

  it('shows the cases linked to the conversations when the cases module is installed', async () => {
    const id = await contact(fx.tenantA, 'whatsapp', `Case ${tag}`);
    const conv = await conversation(id, 'whatsapp', 2);
    const [{ present }] = (await t.dataSource.query(`SELECT to_regclass('case_conversations') IS NOT NULL AS present`)) as {
      present: boolean;
    }[];
    if (!present) {
      expect((await person(id)).casesAvailable).toBe(false);
      return;
    }
    const [kase] = (await t.dataSource.query(
      `INSERT INTO cases (tenant_id, number, subject, description) VALUES ($1, 900000 + floor(random() * 99999)::int, 'Router broken', 'It blinks') RETURNING id`,
      [fx.tenantA.client.id],
    )) as { id: string }[];
    await t.dataSource.query(`INSERT INTO case_conversations (conversation_id, case_id, tenant_id) VALUES ($1, $2, $3)`, [
      conv,
      kase.id,
      fx.tenantA.client.id,
    ]);
    const view = await person(id);
    expect(view.casesAvailable).toBe(true);
    expect(view.timeline.find((entry) => entry.kind === 'case')).toMatchObject({
      id: kase.id,
      subject: 'Router broken',
      conversationId: conv,
    });
  });

  it('finds contacts by name for the "Merge with…" search, own tenant only', async () => {
    const name = `Carla ${tag}`;
    const id = await contact(fx.tenantA, 'whatsapp', name);
    const found = (await t.http().get('/api/contacts').query({ q: name }).set(bearer(fx.agentA)).expect(200)).body as Envelope<
      Page<ContactSummary>
    >;
    expect(found.data!.items.map((item) => item.id)).toEqual([id]);
    const fromB = (await t.http().get('/api/contacts').query({ q: name }).set(bearer(fx.adminB)).expect(200)).body as Envelope<
      Page<ContactSummary>
    >;
    expect(fromB.data!.total).toBe(0);
  });

  it("keeps tenants apart and refuses bad input: another tenant's contact is 404, a self-merge 400", async () => {
    const mine = await contact(fx.tenantA, 'whatsapp', `Dora ${tag}`);
    const theirs = await contact(fx.tenantB, 'whatsapp', `Dora ${tag}`);
    await t.http().get(`/api/contacts/${mine}/person`).set(bearer(fx.adminB)).expect(404);
    await merge(mine, theirs).expect(404);
    await merge(theirs, mine, fx.adminB).expect(404);
    const self = await merge(mine, mine).expect(400);
    expect((self.body as Envelope<null>).errorMessage).toMatch(/cannot be merged with itself/);
    const bad = await merge(mine, 'not-a-uuid').expect(400);
    expect((bad.body as Envelope<null>).errorMessage).toMatch(/contactId must be a UUID/);
    await t.http().get('/api/contacts/not-a-uuid/person').set(bearer(fx.agentA)).expect(400);
    expect((await person(mine)).identities).toHaveLength(1);
  });
});
