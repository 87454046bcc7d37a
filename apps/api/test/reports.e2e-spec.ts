import { QUEUES, reportExportHeaders, type ReportExportState, type ReportPage } from '@centralita/contracts';
import { getQueueToken } from '@nestjs/bullmq';
import { Worker, type Queue } from 'bullmq';
import ExcelJS from 'exceljs';
import { loadWorkerConfig } from '../../worker/src/config/worker-config';
import { expireReportExports } from '../../worker/src/reports/report-export';
import { ReportExportProcessor } from '../../worker/src/reports/report-export.processor';
import { eventually } from '../../../test/support/eventually';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { createCampaign, createLine } from './support/realtime';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(30_000);

// Thursday 15 January 2026, 09:00 UTC: the report window is [T, T + 1 h).
const T = Date.UTC(2026, 0, 15, 9);
const at = (seconds: number) => new Date(T + seconds * 1000);
const WINDOW = { from: at(0).toISOString(), to: at(3600).toISOString() };

describe('Reports (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let supervisor: string;
  let agentToken: string;
  let otherAdmin: string;
  let ana: string;
  let bob: string;
  let ventas: string;
  let soporte: string;
  let campaign: string;
  const conv = { c1: '', c2: '', c3: '', c4: '', foreign: '' };

  const sql = (text: string, values: unknown[] = []) => t.dataSource.query(text, values);

  async function conversation(
    owner: TestTenant,
    options: {
      line: string | null;
      agent: string | null;
      channel: string;
      customer: string;
      status: string;
      created: number;
      closed?: number;
    },
  ): Promise<string> {
    const [row] = await sql(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, agent_id, status, customer_name, snapshot, version,
         last_event, created_at, closed_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $3, $4, $5::text, $6, jsonb_build_object('value', $5::text, 'context', '{}'::jsonb), 1, 'test', $7, $8) RETURNING id`,
      [
        owner.client.id,
        options.channel,
        options.line ?? ventas,
        options.agent,
        options.status,
        options.customer,
        at(options.created),
        options.closed === undefined ? null : at(options.closed),
      ],
    );
    return row.id;
  }

  /** Transition-log rows as the machine host writes them: [from, to, event, second, actor kind, actor id, data]. */
  async function log(
    owner: TestTenant,
    type: 'conversation' | 'agent',
    id: string,
    rows: [string | null, string, string, number, string?, string?, object?][],
  ): Promise<void> {
    let version = 0;
    for (const [from, to, event, second, actorKind = 'system', actorId = null, data = null] of rows) {
      version += 1;
      await sql(
        `INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version, data)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          owner.client.id,
          type,
          id,
          from,
          to,
          event,
          actorKind,
          actorId,
          at(second),
          T + second * 1000,
          version,
          data ? JSON.stringify(data) : null,
        ],
      );
    }
  }

  async function staff(owner: TestTenant, role: 'AGENT' | 'SUPER' | 'ADMIN', name: string, lines: string[] = []) {
    const created = await createUser(t.dataSource, owner, { role, name });
    for (const line of lines)
      await sql(`INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) VALUES ($1, $2, $3)`, [
        created.user.id,
        line,
        owner.client.id,
      ]);
    if (role === 'AGENT')
      await sql(
        `INSERT INTO agent_presence (user_id, tenant_id, status, capacity, snapshot, version, last_event, state_since)
         VALUES ($1, $2, 'available', 3, '{"value":"available","context":{}}'::jsonb, 1, 'test', now())`,
        [created.user.id, owner.client.id],
      );
    return { id: created.user.id, token: (await login(t, created.email, created.password)).accessToken };
  }

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.dataSource);
    other = await createTenant(t.dataSource);
    ventas = await createLine(t.dataSource, tenant, 'Ventas');
    soporte = await createLine(t.dataSource, tenant, 'Soporte');
    campaign = await createCampaign(t.dataSource, tenant, 3);
    supervisor = (await staff(tenant, 'SUPER', 'Sofía Supervisora')).token;
    const anaUser = await staff(tenant, 'AGENT', 'Ana Agente', [ventas]);
    ana = anaUser.id;
    agentToken = anaUser.token;
    bob = (await staff(tenant, 'AGENT', 'Bob Agente', [soporte])).id;
    await sql(`INSERT INTO agent_campaigns (user_id, campaign_id, tenant_id) VALUES ($1, $2, $3)`, [ana, campaign, tenant.client.id]);
    otherAdmin = (await staff(other, 'ADMIN', 'Other admin')).token;

    // c1: queued 30 s, handled 120 s by Ana, closed.
    conv.c1 = await conversation(tenant, {
      line: ventas,
      agent: ana,
      channel: 'webchat',
      customer: 'Carla',
      status: 'Closed',
      created: 0,
      closed: 150,
    });
    await log(tenant, 'conversation', conv.c1, [
      [null, 'LiningUp', 'conversation.created', 0, 'customer'],
      ['LiningUp', 'Active', 'conversation.assigned', 30],
      ['Active', 'Closed', 'conversation.closed', 150, 'agent', ana],
    ]);
    await sql(
      `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text, created_at) VALUES
         ($1, $2, 1, 'customer', NULL, 'Hola <b>necesito</b> ayuda', $3), ($1, $2, 2, 'agent', $4, '=SUM(A1:A3)', $5)`,
      [conv.c1, tenant.client.id, at(40), ana, at(60)],
    );
    // c2: a formula-looking customer name; abandoned after 60 s on Soporte.
    conv.c2 = await conversation(tenant, {
      line: soporte,
      agent: null,
      channel: 'whatsapp',
      customer: '=HYPERLINK("http://x")',
      status: 'Closed',
      created: 600,
      closed: 660,
    });
    await log(tenant, 'conversation', conv.c2, [
      [null, 'LiningUp', 'conversation.created', 600, 'customer'],
      ['LiningUp', 'Closed', 'conversation.abandoned', 660, 'customer'],
    ]);
    // c3: before the window.
    conv.c3 = await conversation(tenant, {
      line: ventas,
      agent: ana,
      channel: 'webchat',
      customer: 'Old',
      status: 'Closed',
      created: -7200,
      closed: -7100,
    });
    // c4: answered after 10 s, still active.
    conv.c4 = await conversation(tenant, {
      line: ventas,
      agent: ana,
      channel: 'webchat',
      customer: 'Diego',
      status: 'Active',
      created: 1000,
    });
    await log(tenant, 'conversation', conv.c4, [
      [null, 'LiningUp', 'conversation.created', 1000, 'customer'],
      ['LiningUp', 'Active', 'conversation.assigned', 1010],
    ]);
    conv.foreign = await conversation(other, {
      line: null,
      agent: null,
      channel: 'webchat',
      customer: 'Foreign',
      status: 'LiningUp',
      created: 5,
    });
    await sql(`UPDATE conversations SET entry_line_id = attention_line_id WHERE id = $1`, [conv.foreign]);

    // Ana: logged in 10 minutes before the window, busy with c1, a 10-minute lunch pause.
    await log(tenant, 'agent', ana, [
      [null, 'available', 'agent.loggedIn', -600, 'agent', ana],
      ['available', 'busy', 'agent.conversationAssigned', 30],
      ['busy', 'available', 'agent.conversationReleased', 150],
      ['available', 'paused', 'agent.paused', 1800, 'agent', ana, { pauseReasonId: 'lunch' }],
      ['paused', 'available', 'agent.resumed', 2400, 'agent', ana],
    ]);

    const [poll] = await sql(
      `INSERT INTO polls (client_id, name, lower_rank, upper_rank) VALUES ($1, 'Satisfacción', 60, 40) RETURNING id`,
      [tenant.client.id],
    );
    const [question] = await sql(
      `INSERT INTO poll_questions (poll_id, client_id, position, text, response_type) VALUES ($1, $2, 1, '¿Cómo le atendimos?', 'text') RETURNING id`,
      [poll.id, tenant.client.id],
    );
    await sql(
      `INSERT INTO poll_responses (client_id, poll_id, question_id, conversation_id, value, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [tenant.client.id, poll.id, question.id, conv.c1, '@muy bien', at(200)],
    );
  });
  afterAll(async () => {
    await t.close();
  });

  const report = async (type: string, query: Record<string, unknown> = {}, token = supervisor) =>
    (
      await t
        .http()
        .get(`/api/reports/${type}`)
        .query({ ...WINDOW, ...query })
        .set(bearer(token))
        .expect(200)
    ).body.data as ReportPage;

  it('lists the conversations of the window with wait and handle times from the transition log', async () => {
    const page = await report('conversations', { sortField: 'createdAt', sortOrder: 'asc' });
    expect(page.total).toBe(3);
    expect(page.items.map((row) => row.id)).toEqual([conv.c1, conv.c2, conv.c4]);
    expect(page.items[0]).toEqual({
      id: conv.c1,
      createdAt: at(0).toISOString(),
      channel: 'webchat',
      line: 'Ventas',
      agent: 'Ana Agente',
      customer: 'Carla',
      status: 'Closed',
      closedAt: at(150).toISOString(),
      waitSeconds: 30,
      handleSeconds: 120,
      messages: 2,
    });
    expect(page.items[1]).toMatchObject({ line: 'Soporte', agent: null, waitSeconds: 60, handleSeconds: null });
    expect(page.items[2]).toMatchObject({ waitSeconds: 10, handleSeconds: null, status: 'Active' });
  });

  it('pages and sorts on the server', async () => {
    const second = await report('conversations', { sortField: 'createdAt', sortOrder: 'asc', page: 2, pageSize: 2 });
    expect(second).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(second.items.map((row) => row.id)).toEqual([conv.c4]);
    const byCustomer = await report('conversations', { sortField: 'customer', sortOrder: 'desc' });
    expect(byCustomer.items.map((row) => row.customer)).toEqual(['Diego', 'Carla', '=HYPERLINK("http://x")']);
  });

  it('filters by line, channel, agent and campaign', async () => {
    const ids = async (query: Record<string, string>) =>
      (await report('conversations', { ...query, sortField: 'createdAt', sortOrder: 'asc' })).items.map((row) => row.id);
    expect(await ids({ attentionLineId: soporte })).toEqual([conv.c2]);
    expect(await ids({ channel: 'whatsapp' })).toEqual([conv.c2]);
    expect(await ids({ agentId: ana })).toEqual([conv.c1, conv.c4]);
    expect(await ids({ campaignId: campaign })).toEqual([conv.c1, conv.c4]);
  });

  it('reports agent activity, pauses and queues with the KPI library', async () => {
    const activity = await report('agent-activity');
    expect(activity.items).toEqual([
      {
        agent: 'Ana Agente',
        email: expect.any(String),
        staffedSeconds: 3000,
        availableSeconds: 2880,
        handlingSeconds: 120,
        pausedSeconds: 600,
        occupancy: 0.04,
        chatsHandled: 1,
        averageHandleSeconds: 120,
      },
      expect.objectContaining({ agent: 'Bob Agente', staffedSeconds: 0, occupancy: null, chatsHandled: 0 }),
    ]);
    const pauses = await report('pauses', { agentId: ana });
    expect(pauses.items).toEqual([{ agent: 'Ana Agente', pauses: 1, pausedSeconds: 600, reasons: 'lunch: 600' }]);
    // Lines spell channels their own way (WebChat): the channel filter matches either spelling.
    expect((await report('queue', { channel: 'webchat' })).total).toBe(2);
    expect((await report('agent-activity', { channel: 'webchat' })).total).toBe(2);
    expect((await report('agent-activity', { attentionLineId: soporte })).items.map((row) => row.agent)).toEqual(['Bob Agente']);
    const queue = await report('queue');
    expect(queue.items).toEqual([
      expect.objectContaining({ line: 'Soporte', offered: 1, answered: 0, abandoned: 1, serviceLevel: 0, longestWaitSeconds: 60 }),
      expect.objectContaining({
        line: 'Ventas',
        offered: 2,
        answered: 2,
        abandoned: 0,
        serviceLevel: 0.5,
        averageSpeedOfAnswerSeconds: 20,
      }),
    ]);
  });

  it('lists survey answers with their conversation, and outbound results (none yet)', async () => {
    const answers = await report('survey-answers');
    expect(answers.items).toEqual([
      {
        answeredAt: at(200).toISOString(),
        poll: 'Satisfacción',
        question: '¿Cómo le atendimos?',
        value: '@muy bien',
        conversationId: conv.c1,
        agent: 'Ana Agente',
        line: 'Ventas',
        channel: 'webchat',
      },
    ]);
    expect(await report('outbound-results')).toMatchObject({ total: 0, items: [] });
  });

  it("lists outbound call results from the dialer's tables", async () => {
    const [list] = await sql(`INSERT INTO phone_lists (client_id, name, entry_count) VALUES ($1, 'Leads', 1) RETURNING id`, [
      tenant.client.id,
    ]);
    const [dialer] = await sql(
      `INSERT INTO dialer_campaigns (tenant_id, name, phone_list_id, mode, status, snapshot, version, last_event)
       VALUES ($1, 'Renovaciones', $2, 'progressive', 'running', '{}'::jsonb, 1, 'test') RETURNING id`,
      [tenant.client.id, list.id],
    );
    const [contact] = await sql(
      `INSERT INTO outbound_contacts (tenant_id, campaign_id, entry_id, phone) VALUES ($1, $2, gen_random_uuid(), '+50688887777') RETURNING id`,
      [tenant.client.id, dialer.id],
    );
    await sql(
      `INSERT INTO outbound_calls (id, tenant_id, campaign_id, contact_id, phone, attempt, status, snapshot, version, last_event, outcome,
         disposition, agent_id, created_at, connected_at, hung_up_at)
       VALUES (gen_random_uuid(), $1, $2, $3, '+50688887777', 1, 'done', '{}'::jsonb, 1, 'test', 'answeredByHuman', 'sale', $4, $5, $6, $7)`,
      [tenant.client.id, dialer.id, contact.id, ana, at(300), at(310), at(400)],
    );
    const page = await report('outbound-results', { campaignId: dialer.id });
    expect(page.items).toEqual([
      {
        startedAt: at(300).toISOString(),
        campaign: 'Renovaciones',
        phone: '+50688887777',
        attempt: 1,
        outcome: 'answeredByHuman',
        disposition: 'sale',
        agent: 'Ana Agente',
        talkSeconds: 90,
      },
    ]);
    expect((await report('outbound-results', { agentId: bob })).total).toBe(0);
  });

  it('refuses bad windows, sorts and types with messages naming the field', async () => {
    const bad = (type: string, query: Record<string, unknown>) => t.http().get(`/api/reports/${type}`).query(query).set(bearer(supervisor));
    expect((await bad('conversations', { to: WINDOW.to }).expect(400)).body.errorMessage).toContain('from');
    expect((await bad('conversations', { from: WINDOW.to, to: WINDOW.from }).expect(400)).body.errorMessage).toBe('to must be after from');
    expect(
      (await bad('conversations', { from: '2024-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }).expect(400)).body.errorMessage,
    ).toContain('to must be at most 366 days');
    expect((await bad('conversations', { ...WINDOW, sortField: 'snapshot' }).expect(400)).body.errorMessage).toContain('sortField');
    expect((await bad('conversations', { ...WINDOW, agentId: 'ana' }).expect(400)).body.errorMessage).toContain('agentId');
    expect((await bad('bogus', WINDOW).expect(400)).body.errorMessage).toContain('type must be one of');
    const exportBody = await t
      .http()
      .post('/api/reports/conversations/exports')
      .send({ ...WINDOW, format: 'pdf' })
      .set(bearer(supervisor))
      .expect(400);
    expect(exportBody.body.errorMessage).toContain('format');
  });

  it("offers the tenant's lines, campaigns, agents and channels as filter options", async () => {
    const options = (await t.http().get('/api/reports/options').set(bearer(supervisor)).expect(200)).body.data;
    expect(options.lines.map((line: { name: string }) => line.name)).toEqual(['Soporte', 'Ventas']);
    expect(options.campaigns).toEqual([{ id: campaign, name: 'Campaign' }]);
    expect(options.agents.map((agent: { name: string }) => agent.name)).toEqual(['Ana Agente', 'Bob Agente']);
    expect(options.channels).toEqual(['webchat', 'whatsapp']);
    expect(options.dialerCampaigns).toEqual(expect.any(Array));
  });

  it('answers 403 to an agent without reports.view', async () => {
    await t.http().get('/api/reports/options').set(bearer(agentToken)).expect(403);
    await t.http().get('/api/reports/conversations').query(WINDOW).set(bearer(agentToken)).expect(403);
    await t
      .http()
      .post('/api/reports/conversations/exports')
      .send({ ...WINDOW, format: 'csv' })
      .set(bearer(agentToken))
      .expect(403);
  });

  it('shows the conversation detail with transcript, status changes, agents and survey answers; HTML stays text', async () => {
    const detail = (await t.http().get(`/api/reports/conversations/${conv.c1}/detail`).set(bearer(supervisor)).expect(200)).body.data;
    expect(detail).toMatchObject({ id: conv.c1, line: 'Ventas', customer: 'Carla', agents: ['Ana Agente'], status: 'Closed' });
    expect(detail.messages).toEqual([
      { at: at(40).toISOString(), senderKind: 'customer', sender: 'Carla', text: 'Hola <b>necesito</b> ayuda' },
      { at: at(60).toISOString(), senderKind: 'agent', sender: 'Ana Agente', text: '=SUM(A1:A3)' },
    ]);
    expect(detail.transitions.map((row: { to: string }) => row.to)).toEqual(['LiningUp', 'Active', 'Closed']);
    expect(detail.surveyAnswers).toEqual([
      { at: at(200).toISOString(), poll: 'Satisfacción', question: '¿Cómo le atendimos?', value: '@muy bien' },
    ]);

    // Labelled in the requester's language (Spanish without Accept-Language): states, events and the
    // channel in words too; names, text and times as they are.
    const text = await t.http().get(`/api/reports/conversations/${conv.c1}/detail/download`).set(bearer(supervisor)).expect(200);
    expect(text.headers['content-type']).toContain('text/plain');
    expect(text.headers['content-disposition']).toBe(`attachment; filename="conversation-${conv.c1}.txt"`);
    expect(text.text.split('\n').slice(0, 10)).toEqual([
      `Conversación ${conv.c1}`,
      'Canal: WebChat',
      'Línea: Ventas',
      'Cliente: Carla',
      'Agentes: Ana Agente',
      'Estado: Cerrada',
      `Inicio: ${detail.createdAt}`,
      `Cierre: ${detail.closedAt}`,
      '',
      'Transcripción',
    ]);
    expect(text.text).toContain(`[${at(40).toISOString()}] Carla: Hola <b>necesito</b> ayuda`);
    expect(text.text).toContain('\nCambios de estado\n');
    expect(text.text).toContain(`[${at(30).toISOString()}] En cola -> Activa (Asignada a un agente, Sistema)\n`);
    expect(text.text).not.toMatch(/LiningUp|conversation\.assigned/);
    expect(text.text).toContain(`\nEncuesta\n[${at(200).toISOString()}] ¿Cómo le atendimos?: @muy bien\n`);
    const german = await t
      .http()
      .get(`/api/reports/conversations/${conv.c1}/detail/download`)
      .set(bearer(supervisor))
      .set('Accept-Language', 'de-DE,de;q=0.9,en;q=0.8')
      .expect(200);
    expect(german.text.split('\n').slice(0, 3)).toEqual([`Gespräch ${conv.c1}`, 'Kanal: WebChat', 'Linie: Ventas']);
    expect(german.text).toContain('\nVerlauf\n');
    const csv = await t.http().get(`/api/reports/conversations/${conv.c1}/detail/download?format=csv`).set(bearer(supervisor)).expect(200);
    expect(csv.text.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe('"Hora","Tipo","Quién","Texto"');
    expect(csv.text).toContain(`"${at(60).toISOString()}","Mensaje","Ana Agente","'=SUM(A1:A3)"`);
    const russian = await t
      .http()
      .get(`/api/reports/conversations/${conv.c1}/detail/download?format=csv`)
      .set(bearer(supervisor))
      .set('Accept-Language', 'ru')
      .expect(200);
    expect(russian.text.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe('"Время","Тип","Кто","Текст"');
    expect(russian.text).toContain(`"${at(200).toISOString()}","Опрос","Carla","¿Cómo le atendimos?: @muy bien"`);
    expect(russian.text).toContain(`"${at(150).toISOString()}","Статус","Ana Agente","Активная -> Закрыта (Закрыт)"`);

    await t.http().get(`/api/reports/conversations/${conv.foreign}/detail`).set(bearer(supervisor)).expect(404);
    await t.http().get(`/api/reports/conversations/${conv.c1}/detail`).set(bearer(otherAdmin)).expect(404);
  });

  describe('exports through the worker processor (real PostgreSQL and Redis)', () => {
    let worker: Worker;
    let processor: ReportExportProcessor;

    beforeAll(() => {
      const config = loadWorkerConfig({ ...process.env, NODE_ENV: 'test' });
      processor = new ReportExportProcessor(t.dataSource, config);
      // Only the report queue: other suites' queues share this run's prefix.
      worker = new Worker(QUEUES.reportExport, (job) => processor.process(job), {
        connection: { url: config.redisUrl, maxRetriesPerRequest: null },
        prefix: config.queuePrefix,
      });
    });
    afterAll(async () => {
      await worker.close();
    });

    /** `acceptLanguage`: what the console sends (its language); none means the default, Spanish. */
    async function exportOf(
      format: 'csv' | 'xlsx',
      query: Record<string, string> = {},
      acceptLanguage?: string,
    ): Promise<ReportExportState> {
      const request = t
        .http()
        .post('/api/reports/conversations/exports')
        .send({ ...WINDOW, ...query, format })
        .set(bearer(supervisor));
      if (acceptLanguage) request.set('Accept-Language', acceptLanguage);
      const started = (await request.expect(200)).body.data as ReportExportState;
      expect(started).toMatchObject({ status: 'queued', progress: 0, type: 'conversations', format });
      const queue = t.app.get<Queue>(getQueueToken(QUEUES.reportExport));
      expect((await queue.getJob(started.id))?.data).toEqual({ exportId: started.id });
      return eventually(
        async () => {
          const state = (await t.http().get(`/api/reports/exports/${started.id}`).set(bearer(supervisor)).expect(200)).body
            .data as ReportExportState;
          expect(state.status).toBe('done');
          return state;
        },
        { timeoutMs: 20_000 },
      );
    }

    it('writes the CSV the table shows, with formula cells neutralised (asked for in English)', async () => {
      const done = await exportOf('csv', {}, 'en');
      expect(done).toMatchObject({ progress: 100, rowCount: 3, totalRows: 3 });
      const file = await t.http().get(`/api/reports/exports/${done.id}/download`).set(bearer(supervisor)).expect(200);
      expect(file.headers['content-type']).toContain('text/csv');
      expect(file.headers['content-disposition']).toBe('attachment; filename="conversations-2026-01-15-2026-01-15.csv"');
      const lines = file.text
        .replace(/^\uFEFF/, '')
        .trimEnd()
        .split('\r\n');
      expect(lines[0]).toBe(
        '"Conversation","Started","Channel","Line","Agent","Customer","Status","Closed","Wait (s)","Handle time (s)","Messages"',
      );
      expect(lines.slice(1)).toEqual([
        `"${conv.c1}","${at(0).toISOString()}","WebChat","Ventas","Ana Agente","Carla","Closed","${at(150).toISOString()}","30","120","2"`,
        `"${conv.c2}","${at(600).toISOString()}","WhatsApp","Soporte","","'=HYPERLINK(""http://x"")","Closed","${at(660).toISOString()}","60","","0"`,
        `"${conv.c4}","${at(1000).toISOString()}","WebChat","Ventas","Ana Agente","Diego","Active","","10","","0"`,
      ]);
    });

    async function workbookOf(exportId: string): Promise<ExcelJS.Worksheet> {
      const file = await t
        .http()
        .get(`/api/reports/exports/${exportId}/download`)
        .set(bearer(supervisor))
        .buffer(true)
        .parse((res, callback) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => callback(null, Buffer.concat(chunks)));
        })
        .expect(200);
      expect(file.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      const workbook = new ExcelJS.Workbook();
      // exceljs declares the Buffer of older @types/node; the bytes are the same.
      await workbook.xlsx.load(file.body as Parameters<typeof workbook.xlsx.load>[0]);
      return workbook.worksheets[0]!;
    }

    const csvHeader = async (exportId: string) =>
      (await t.http().get(`/api/reports/exports/${exportId}/download`).set(bearer(supervisor)).expect(200)).text
        .replace(/^\uFEFF/, '')
        .split('\r\n')[0];

    it('writes an XLSX with numbers as numbers and formula cells neutralised', async () => {
      const done = await exportOf('xlsx', { channel: 'whatsapp' }, 'en');
      expect(done.rowCount).toBe(1);
      const sheet = await workbookOf(done.id);
      expect(sheet.rowCount).toBe(2);
      expect((sheet.getRow(1).values as unknown[]).slice(1, 4)).toEqual(['Conversation', 'Started', 'Channel']);
      const values = (sheet.getRow(2).values as unknown[]).slice(1);
      expect(values[0]).toBe(conv.c2);
      expect(values[5]).toBe(`'=HYPERLINK("http://x")`);
      expect(values[8]).toBe(60);
      expect(sheet.getRow(2).getCell(6).type).toBe(ExcelJS.ValueType.String);
    });

    it("heads the file in the requester's language: German when the console asks for it, Spanish by default", async () => {
      const german = await exportOf('csv', { channel: 'whatsapp' }, 'de-DE,de;q=0.9,en;q=0.8');
      expect(await csvHeader(german.id)).toBe(
        '"Gespräch","Beginn","Kanal","Linie","Agent","Kunde","Status","Geschlossen","Wartezeit (s)","Bearbeitungszeit (s)","Nachrichten"',
      );
      const germanSheet = await workbookOf((await exportOf('xlsx', { channel: 'whatsapp' }, 'de')).id);
      expect((germanSheet.getRow(1).values as unknown[]).slice(1)).toEqual(reportExportHeaders('conversations', 'de'));
      // Numbers stay numbers whatever the language; a status is written as its German label.
      expect((germanSheet.getRow(2).values as unknown[])[9]).toBe(60);
      expect((germanSheet.getRow(2).values as unknown[])[7]).toBe('Geschlossen');

      const spanish = await exportOf('csv', { channel: 'whatsapp' });
      expect(await csvHeader(spanish.id)).toBe(
        '"Conversación","Inicio","Canal","Línea","Agente","Cliente","Estado","Cierre","Espera (s)","Tiempo de atención (s)","Mensajes"',
      );
      const [{ language }] = await sql(`SELECT language FROM report_exports WHERE id = $1`, [spanish.id]);
      expect(language).toBe('es');
    });

    it('deletes files past the retention period and answers 409 for an expired export', async () => {
      const done = await exportOf('csv', { channel: 'webchat' });
      const [{ file_id: fileId }] = await sql(`SELECT file_id FROM report_exports WHERE id = $1`, [done.id]);
      const largeObject = async () =>
        (
          await sql(`SELECT count(*)::int AS n FROM pg_largeobject_metadata m JOIN stored_files f ON f.lo_oid = m.oid WHERE f.id = $1`, [
            fileId,
          ])
        )[0].n;
      expect(await largeObject()).toBe(1);
      const [{ lo_oid: oid }] = await sql(`SELECT lo_oid::text FROM stored_files WHERE id = $1`, [fileId]);
      await sql(`UPDATE report_exports SET finished_at = now() - interval '25 hours' WHERE id = $1`, [done.id]);
      const run = (text: string, values: unknown[]) => t.dataSource.query(text, values);
      expect(await expireReportExports(run, processor.store, 24 * 3600 * 1000)).toBe(1);
      // The file's row and its large object are gone, and the export no longer points at them.
      expect(await sql(`SELECT 1 FROM stored_files WHERE id = $1`, [fileId])).toEqual([]);
      expect(await sql(`SELECT 1 FROM pg_largeobject_metadata WHERE oid = $1::oid`, [oid])).toEqual([]);
      expect((await sql(`SELECT file_id FROM report_exports WHERE id = $1`, [done.id]))[0].file_id).toBeNull();
      const state = (await t.http().get(`/api/reports/exports/${done.id}`).set(bearer(supervisor)).expect(200)).body.data;
      expect(state.status).toBe('expired');
      const refused = await t.http().get(`/api/reports/exports/${done.id}/download`).set(bearer(supervisor)).expect(409);
      expect(refused.body.errorMessage).toBe('The export has expired');
    });

    it("answers 404 for another tenant's export and 409 before it is ready", async () => {
      const done = await exportOf('csv', { agentId: bob });
      expect(done.rowCount).toBe(0);
      await t.http().get(`/api/reports/exports/${done.id}`).set(bearer(otherAdmin)).expect(404);
      await t.http().get(`/api/reports/exports/${done.id}/download`).set(bearer(otherAdmin)).expect(404);
      const [pending] = await sql(
        `INSERT INTO report_exports (tenant_id, user_id, report_type, format, filters, file_name) VALUES ($1, $2, 'conversations', 'csv', '{}', 'x.csv') RETURNING id`,
        [tenant.client.id, ana],
      );
      await t.http().get(`/api/reports/exports/${pending.id}/download`).set(bearer(supervisor)).expect(409);
    });
  });
});
