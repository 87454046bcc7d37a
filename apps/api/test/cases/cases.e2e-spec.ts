import { randomUUID } from 'node:crypto';
import {
  CATALOGUE_MESSAGES,
  type CaseDetail,
  type CaseOptions,
  type CaseSummary,
  type ConversationCase,
  type GeoArea,
  type Page,
} from '@centralita/contracts';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import { createUser, type TestTenant } from '../support/factories';
import { createLine, createTenant, data, openConversation } from '../support/realtime';
import { bearer, login, startTestApp, type TestApp } from '../support/test-app';

// Argon2 logins in beforeAll are slow on shared machines.
jest.setTimeout(60_000);

describe('Cases (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let agent: { id: string; token: string };
  let second: { id: string; token: string };
  let supervisor: string;
  let foreign: string;
  let options: CaseOptions;
  let line: string;

  const staff = async (on: TestTenant, role: 'AGENT' | 'SUPER' | 'ADMIN', name?: string) => {
    const { user, email, password } = await createUser(t.dataSource, on, { role, name });
    return { id: user.id, token: (await login(t, email, password)).accessToken };
  };
  const create = async (token: string, body: Record<string, unknown>) =>
    data<CaseDetail>(await t.http().post('/api/cases').set(bearer(token)).send(body));

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.dataSource);
    agent = await staff(tenant, 'AGENT', 'Ana Agente');
    second = await staff(tenant, 'AGENT', 'Bruno Segundo');
    supervisor = (await staff(tenant, 'SUPER')).token;
    foreign = (await staff(await createTenant(t.dataSource), 'AGENT')).token;
    line = await createLine(t.dataSource, tenant, 'Support');
    options = data<CaseOptions>(await t.http().get('/api/cases/options').set(bearer(agent.token)));
  });
  afterAll(() => t.close());

  it("seeds the tenant's catalogues: case types, Costa Rica's identification types and geography", async () => {
    expect(options.types.map((type) => type.code)).toEqual(['query', 'request', 'complaint', 'claim', 'incident']);
    expect(options.identificationTypes.map((type) => type.code)).toEqual([
      'cedula_fisica',
      'cedula_juridica',
      'dimex',
      'nite',
      'pasaporte',
    ]);
    expect(options.provinces.map((p) => p.name)).toEqual([
      'San José',
      'Alajuela',
      'Cartago',
      'Heredia',
      'Guanacaste',
      'Puntarenas',
      'Limón',
    ]);
    const sanJose = options.provinces[0]!;
    const cantons = data<GeoArea[]>(
      await t.http().get('/api/cases/geo').query({ level: 'canton', parentId: sanJose.id }).set(bearer(agent.token)),
    );
    expect(cantons).toHaveLength(20);
    const escazu = cantons.find((c) => c.name === 'Escazú')!;
    expect(escazu.code).toBe('102');
    const districts = data<GeoArea[]>(
      await t.http().get('/api/cases/geo').query({ level: 'district', parentId: escazu.id }).set(bearer(agent.token)),
    );
    expect(districts.map((d) => d.name)).toEqual(['Escazú', 'San Antonio', 'San Rafael']);
    expect(options.users.map((u) => u.name)).toEqual(expect.arrayContaining(['Ana Agente', 'Bruno Segundo']));
  });

  it('creates a case with a C-000000 code from the tenant sequence, unique under concurrent creation', async () => {
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(agent.token, { subject: `Parallel ${i}`, description: 'Created at the same time' })),
    );
    const numbers = made.map((c) => c.number).sort((a, b) => a - b);
    expect(new Set(numbers).size).toBe(12);
    expect(numbers[11]! - numbers[0]!).toBe(11);
    for (const c of made) expect(c.code).toBe(`C-${String(c.number).padStart(6, '0')}`);
    // Another tenant's sequence is its own.
    const theirs = await create(foreign, { subject: 'Other tenant', description: 'Own sequence' });
    expect(theirs.number).toBe(1);
  });

  it('refuses a case without description, with a bad email, phone or identification number, naming each field', async () => {
    const refused = await t
      .http()
      .post('/api/cases')
      .set(bearer(agent.token))
      .send({
        subject: 'Missing description',
        contactEmail: 'not-an-email',
        contactPhone: '12',
        identificationTypeId: options.identificationTypes[0]!.id,
        identificationNumber: '12-34',
      })
      .expect(400);
    expect(refused.body.data.fields).toEqual({
      description: ['description is required'],
      contactEmail: ['contactEmail must be an email'],
      contactPhone: ['contactPhone must have at least 8 digits'],
      identificationNumber: ['identificationNumber is not in the expected format'],
    });
    const cartago = options.provinces.find((p) => p.name === 'Cartago')!;
    const sanJoseCanton = data<GeoArea[]>(
      await t.http().get('/api/cases/geo').query({ level: 'canton', parentId: options.provinces[0]!.id }).set(bearer(agent.token)),
    )[0]!;
    const mismatch = await t
      .http()
      .post('/api/cases')
      .set(bearer(agent.token))
      .send({ subject: 'Geo', description: 'Canton outside province', provinceId: cartago.id, cantonId: sanJoseCanton.id })
      .expect(400);
    expect(Object.keys(mismatch.body.data.fields)).toEqual(['cantonId']);
    const hostile = await t
      .http()
      .post('/api/cases')
      .set(bearer(agent.token))
      .send({ subject: ['x'], description: { $gt: '' } })
      .expect(400);
    expect(hostile.body.errorMessage).toMatch(/subject|description/);
    await t.http().get('/api/cases').query({ status: 'nonsense' }).set(bearer(agent.token)).expect(400);
    await t.http().get('/api/cases').query({ from: 'yesterday' }).set(bearer(agent.token)).expect(400);
    await t.http().get('/api/cases/not-a-uuid').set(bearer(agent.token)).expect(400);
  });

  it('stores contact data with province, canton, district and a valid cédula, and lists, filters and searches', async () => {
    const sanJose = options.provinces[0]!;
    const canton = data<GeoArea[]>(
      await t.http().get('/api/cases/geo').query({ level: 'canton', parentId: sanJose.id }).set(bearer(agent.token)),
    )[0]!;
    const district = data<GeoArea[]>(
      await t.http().get('/api/cases/geo').query({ level: 'district', parentId: canton.id }).set(bearer(agent.token)),
    )[0]!;
    const marker = randomUUID().slice(0, 8);
    const complaint = options.types.find((type) => type.code === 'complaint')!;
    const made = await create(agent.token, {
      typeId: complaint.id,
      subject: `Router ${marker}`,
      description: 'The router restarts every hour',
      contactName: 'María Pérez',
      contactEmail: 'maria@example.com',
      contactPhone: '+506 8888 1234',
      provinceId: sanJose.id,
      cantonId: canton.id,
      districtId: district.id,
      identificationTypeId: options.identificationTypes[0]!.id,
      identificationNumber: '112340567',
      ownerId: second.id,
      status: 'in_progress',
    });
    expect(made).toMatchObject({
      provinceName: 'San José',
      cantonName: 'San José',
      districtName: 'Carmen',
      identificationTypeName: 'Cédula física',
      ownerName: 'Bruno Segundo',
      typeName: 'Queja',
    });
    const list = (query: Record<string, string>) => t.http().get('/api/cases').query(query).set(bearer(agent.token));
    const byText = data<Page<CaseSummary>>(await list({ q: marker }));
    expect(byText.items.map((c) => c.id)).toEqual([made.id]);
    expect(data<Page<CaseSummary>>(await list({ q: made.code })).items.map((c) => c.id)).toEqual([made.id]);
    expect(data<Page<CaseSummary>>(await list({ q: 'maria@example' })).items.map((c) => c.id)).toContain(made.id);
    expect(data<Page<CaseSummary>>(await list({ q: marker, status: 'open' })).total).toBe(0);
    expect(data<Page<CaseSummary>>(await list({ q: marker, status: 'in_progress', typeId: complaint.id, ownerId: second.id })).total).toBe(
      1,
    );
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    expect(data<Page<CaseSummary>>(await list({ q: marker, from: tomorrow })).total).toBe(0);
    expect(data<Page<CaseSummary>>(await list({ q: marker, to: tomorrow })).total).toBe(1);
    // The other tenant finds nothing of it.
    expect(data<Page<CaseSummary>>(await t.http().get('/api/cases').query({ q: marker }).set(bearer(foreign))).total).toBe(0);
  });

  it('lets a second agent add a note with a mention, activities and assignment, all in the history', async () => {
    const made = await create(agent.token, { subject: 'Shared work', description: 'Two agents on one case' });
    await t.http().post(`/api/cases/${made.id}/assignees`).set(bearer(agent.token)).send({ userId: second.id }).expect(200);
    const noted = data<CaseDetail>(
      await t
        .http()
        .post(`/api/cases/${made.id}/notes`)
        .set(bearer(second.token))
        .send({ text: '@Ana Agente I called the customer', mentions: [agent.id] }),
    );
    expect(noted.notes).toEqual([
      expect.objectContaining({ authorId: second.id, authorName: 'Bruno Segundo', mentions: [{ id: agent.id, name: 'Ana Agente' }] }),
    ]);
    const due = new Date(Date.now() + 3_600_000).toISOString();
    const withTask = data<CaseDetail>(
      await t
        .http()
        .post(`/api/cases/${made.id}/activities`)
        .set(bearer(second.token))
        .send({ kind: 'call', title: 'Call back', dueAt: due, assigneeId: agent.id }),
    );
    const task = withTask.activities[0]!;
    expect(task).toMatchObject({ kind: 'call', title: 'Call back', dueAt: due, doneAt: null, assigneeName: 'Ana Agente' });
    const done = data<CaseDetail>(
      await t.http().put(`/api/cases/${made.id}/activities/${task.id}`).set(bearer(agent.token)).send({ done: true }),
    );
    expect(done.activities[0]!.doneAt).not.toBeNull();
    const changed = data<CaseDetail>(
      await t.http().put(`/api/cases/${made.id}`).set(bearer(agent.token)).send({ status: 'resolved', subject: 'Shared work (done)' }),
    );
    // What the first agent reads back: the note of the second and everything in order.
    const seen = data<CaseDetail>(await t.http().get(`/api/cases/${made.id}`).set(bearer(agent.token)));
    expect(seen.notes.map((n) => n.text)).toEqual(['@Ana Agente I called the customer']);
    expect(seen.assignees).toEqual([{ id: second.id, name: 'Bruno Segundo' }]);
    expect(changed.closedAt).not.toBeNull();
    expect(seen.history.map((h) => [h.action, h.actorName, h.field, h.oldValue, h.newValue])).toEqual([
      ['created', 'Ana Agente', null, null, made.code],
      ['assigned', 'Ana Agente', null, null, 'Bruno Segundo'],
      ['note_added', 'Bruno Segundo', null, null, '@Ana Agente I called the customer'],
      ['activity_added', 'Bruno Segundo', 'call', null, 'Call back'],
      ['activity_done', 'Ana Agente', null, null, 'Call back'],
      ['changed', 'Ana Agente', 'subject', 'Shared work', 'Shared work (done)'],
      ['changed', 'Ana Agente', 'status', 'open', 'resolved'],
    ]);
    // Hostile and empty inputs.
    await t.http().post(`/api/cases/${made.id}/notes`).set(bearer(agent.token)).send({ text: '   ' }).expect(400);
    const badMention = await t
      .http()
      .post(`/api/cases/${made.id}/notes`)
      .set(bearer(agent.token))
      .send({ text: 'hi', mentions: [randomUUID()] })
      .expect(400);
    expect(Object.keys(badMention.body.data.fields)).toEqual(['mentions']);
    const badActivity = await t
      .http()
      .post(`/api/cases/${made.id}/activities`)
      .set(bearer(agent.token))
      .send({ kind: 'party', title: '', dueAt: 'soon' })
      .expect(400);
    expect(Object.keys(badActivity.body.data.fields).sort()).toEqual(['dueAt', 'kind', 'title']);
  });

  it("answers 404 for another tenant's case everywhere, and 403 without crm.use", async () => {
    const mine = await create(agent.token, { subject: 'Private', description: 'Tenant A only' });
    await t.http().get(`/api/cases/${mine.id}`).set(bearer(foreign)).expect(404);
    await t.http().put(`/api/cases/${mine.id}`).set(bearer(foreign)).send({ subject: 'Hijack' }).expect(404);
    await t.http().post(`/api/cases/${mine.id}/notes`).set(bearer(foreign)).send({ text: 'hi' }).expect(404);
    await t.http().post(`/api/cases/${mine.id}/activities`).set(bearer(foreign)).send({ kind: 'task', title: 'x' }).expect(404);
    const foreignUser = await staff(await createTenant(t.dataSource), 'AGENT');
    await t.http().post(`/api/cases/${mine.id}/assignees`).set(bearer(agent.token)).send({ userId: foreignUser.id }).expect(400);
    await t.dataSource.query(
      `UPDATE roles SET permissions = array_remove(permissions, 'crm.use') WHERE client_id = $1 AND code = 'SUPER'`,
      [tenant.client.id],
    );
    const noCrm = await staff(tenant, 'SUPER');
    await t.http().get('/api/cases').set(bearer(noCrm.token)).expect(403);
  });

  it('creates a case from a conversation prefilled from its contact, links it once, and shows the transcript', async () => {
    const conversationId = await openConversation(t, tenant, line, 'Carla Cliente');
    await t.dataSource.query(`UPDATE conversations SET customer_email = 'carla@example.com' WHERE id = $1`, [conversationId]);
    await t.dataSource.query(
      `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text) VALUES ($1, $2, 1, 'customer', NULL, 'Hola, my router is broken'), ($1, $2, 2, 'agent', $3, 'Let me check')`,
      [conversationId, tenant.client.id, agent.id],
    );
    const before = data<ConversationCase>(await t.http().get(`/api/cases/by-conversation/${conversationId}`).set(bearer(agent.token)));
    expect(before).toMatchObject({ caseId: null, prefill: { contactName: 'Carla Cliente', contactEmail: 'carla@example.com' } });
    const made = await create(agent.token, {
      subject: 'From the desk',
      description: 'Router broken',
      contactName: 'Carla Cliente',
      conversationId,
    });
    const after = data<ConversationCase>(await t.http().get(`/api/cases/by-conversation/${conversationId}`).set(bearer(agent.token)));
    expect(after).toMatchObject({ caseId: made.id, caseCode: made.code });
    expect(made.conversations).toEqual([expect.objectContaining({ conversationId, channel: 'webchat', customerName: 'Carla Cliente' })]);
    const twice = await t
      .http()
      .post('/api/cases')
      .set(bearer(agent.token))
      .send({ subject: 'Again', description: 'x', conversationId })
      .expect(409);
    expect(twice.body.errorMessage).toContain(made.code);
    const transcript = data<{ messages: { senderName: string; text: string }[]; recordings: unknown[] }>(
      await t.http().get(`/api/cases/${made.id}/conversations/${conversationId}/transcript`).set(bearer(agent.token)),
    );
    expect(transcript.messages.map((m) => [m.senderName, m.text])).toEqual([
      ['Carla Cliente', 'Hola, my router is broken'],
      ['Ana Agente', 'Let me check'],
    ]);
    expect(transcript.recordings).toEqual([]);
    await t.http().get(`/api/cases/by-conversation/${conversationId}`).set(bearer(foreign)).expect(404);
    await t.http().get(`/api/cases/${made.id}/conversations/${conversationId}/transcript`).set(bearer(foreign)).expect(404);
  });

  it("refuses to close an email conversation without its case (the spec's message), and closes it once linked", async () => {
    const host = t.app.get(MachineHostService);
    const id = randomUUID();
    await host.transaction(async (manager, outbox) => {
      const created = await host.createConversation(
        manager,
        {
          id,
          tenantId: tenant.client.id,
          channel: 'email',
          entryLineId: line,
          customerName: 'Mail Customer',
          customerEmail: 'mail@example.com',
          visitorId: null,
        },
        { kind: 'customer' },
      );
      outbox.push(...created.outboxIds);
    });
    const refused = await t
      .http()
      .post(`/api/supervisor/conversations/${id}/close`)
      .set(bearer(supervisor))
      .send({ disposition: 'resolved' })
      .expect(409);
    expect(refused.body.errorMessage).toBe(CATALOGUE_MESSAGES.emailNeedsCase);
    const [row] = await t.dataSource.query(`SELECT status FROM conversations WHERE id = $1`, [id]);
    expect(row.status).not.toBe('Closed');
    await create(agent.token, { subject: 'Email case', description: 'Written from the email', conversationId: id });
    const closed = data<{ status: string }>(
      await t.http().post(`/api/supervisor/conversations/${id}/close`).set(bearer(supervisor)).send({ disposition: 'resolved' }),
    );
    expect(closed.status).toBe('Closed');
  });

  it('exports the filtered cases as CSV and xlsx with translated headers and neutralised cells', async () => {
    const marker = randomUUID().slice(0, 8);
    await create(agent.token, { subject: `=HYPERLINK("x") ${marker}`, description: 'Formula-looking subject' });
    await create(agent.token, { subject: `Plain ${marker}`, description: 'Normal' });
    const csv = await t
      .http()
      .get('/api/cases/export')
      .query({ format: 'csv', q: marker })
      .set(bearer(agent.token))
      .set('Accept-Language', 'en')
      .expect(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const lines = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('"Code","Created","Status","Type","Subject","Description","Contact","Email","Phone","Owner","Assignees"');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"") ${marker}"`);
    expect(lines[2]).toContain('"Open"');
    const spanish = await t.http().get('/api/cases/export').query({ format: 'csv', q: marker }).set(bearer(agent.token)).expect(200);
    expect(spanish.text).toContain('"Código","Creado","Estado"');
    const xlsx = await t
      .http()
      .get('/api/cases/export')
      .query({ format: 'xlsx', q: marker })
      .set(bearer(agent.token))
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect((xlsx.body as Buffer).subarray(0, 2).toString()).toBe('PK');
    await t.http().get('/api/cases/export').query({ format: 'pdf' }).set(bearer(agent.token)).expect(400);
  });
});
