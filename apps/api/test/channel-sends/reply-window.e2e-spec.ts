import { randomUUID } from 'node:crypto';
import type { ChannelAdapter, ChannelRegistry, TemplateInfo } from '@centralita/channels';
import type { MessageView, ReplyWindowView, TemplateView } from '@centralita/contracts';
import { ConfigCrypto } from '@centralita/contracts/server';
import { CHANNEL_REGISTRY } from '../../src/modules/channels/channel-adapters.service';
import { createLine, createStaff, createTenant, data, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

/**
 * An agent writing to a WhatsApp customer: free text inside the 24-hour window is stored pending
 * with the worker's send job; after it, free text is refused and not stored while an approved
 * template goes; nothing goes to a customer who opted out. The account's templates come from a
 * test adapter put in the registry in place of the real one (the provider is not called).
 */
describe('agent sends on a messaging channel: reply window, templates, opt-out', () => {
  let t: TestApp;
  let agent: StaffMember;
  let tenantId: string;
  let lineId: string;
  let accountId: string;
  let realWhatsApp: ChannelAdapter | undefined;
  const templates: TemplateInfo[] = [
    {
      name: 'order_update',
      language: 'es',
      status: 'APPROVED',
      category: 'UTILITY',
      body: 'Hola {{1}}, su pedido {{2}} está en camino.',
      parameterCount: 2,
      headerText: null,
      headerParameterCount: 0,
    },
    {
      name: 'ticket_update',
      language: 'es',
      status: 'APPROVED',
      category: 'UTILITY',
      body: 'Hola {{1}}, su caso avanza.',
      parameterCount: 1,
      headerText: 'Caso {{1}}',
      headerParameterCount: 1,
    },
  ];

  beforeAll(async () => {
    process.env.CONFIG_ENCRYPTION_KEY ??= 'cd'.repeat(32);
    t = await startTestApp();
    const registry = t.app.get<ChannelRegistry & Map<string, ChannelAdapter>>(CHANNEL_REGISTRY, { strict: false });
    realWhatsApp = registry.get('whatsapp');
    if (!realWhatsApp) throw new Error('the WhatsApp adapter is not registered');
    // The real adapter's capabilities (24 h window, templates), with templates answered here instead of by Meta.
    registry.set('whatsapp', Object.assign(Object.create(realWhatsApp) as ChannelAdapter, { listTemplates: async () => templates }));
    const tenant = await createTenant(t.dataSource);
    tenantId = tenant.client.id;
    lineId = await createLine(t.dataSource, tenant, `WA ${randomUUID().slice(0, 8)}`);
    agent = await createStaff(t, tenant, 'AGENT', [lineId]);
    const crypto = new ConfigCrypto(process.env);
    const [account] = (await t.dataSource.query(
      `INSERT INTO channel_accounts (tenant_id, kind, name, external_account_id, attention_line_id, settings, secrets, verify_token)
       VALUES ($1, 'whatsapp', 'WA', $2, $3, $4, $5, 'verify') RETURNING id`,
      [tenantId, `pn-${randomUUID()}`, lineId, { businessAccountId: 'waba-1' }, { accessToken: crypto.encrypt('token') }],
    )) as { id: string }[];
    accountId = account!.id;
  });
  afterAll(async () => {
    if (realWhatsApp) t.app.get<Map<string, ChannelAdapter>>(CHANNEL_REGISTRY, { strict: false }).set('whatsapp', realWhatsApp);
    await t.close();
  });

  /** An Active WhatsApp conversation held by the agent, whose customer last wrote `minutesAgo`. */
  async function conversation(minutesAgo: number, optedOut = false): Promise<string> {
    const [contact] = (await t.dataSource.query(
      `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name, opted_out_at, opt_out_reason)
       VALUES ($1, 'whatsapp', $2, $3, 'Ana', $4, $5) RETURNING id`,
      [tenantId, accountId, `346${Math.floor(Math.random() * 1e8)}`, optedOut ? new Date() : null, optedOut ? 'marketing' : null],
    )) as { id: string }[];
    const id = randomUUID();
    await t.dataSource.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, agent_id, status, customer_name, snapshot, version, last_event, contact_id, channel_account_id)
       VALUES ($1, $2, 'whatsapp', $3, $3, $4, 'Active', 'Ana', '{"value": "Active", "context": {}, "status": "active"}', 1, 'test', $5, $6)`,
      [id, tenantId, lineId, agent.userId, contact!.id, accountId],
    );
    await t.dataSource.query(
      `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, text, created_at) VALUES ($1, $2, 1, 'customer', 'hola', now() - make_interval(mins => $3))`,
      [id, tenantId, minutesAgo],
    );
    return id;
  }

  const agentMessages = async (conversationId: string) =>
    (await t.dataSource.query(
      `SELECT id, text, delivery_status, template, channel_account_id FROM messages WHERE conversation_id = $1 AND sender_kind = 'agent'`,
      [conversationId],
    )) as { id: string; text: string; delivery_status: string; template: unknown; channel_account_id: string }[];
  const sendJobs = async (messageId: string) =>
    (await t.dataSource.query(`SELECT payload FROM outbox WHERE topic = 'job' AND payload->>'jobId' = $1`, [
      `channel-send.${messageId}`,
    ])) as {
      payload: { queue: string; data: unknown };
    }[];

  it('stores free text inside the window as pending, with the worker’s send job in the same commit', async () => {
    const id = await conversation(60);
    const window = data<ReplyWindowView>(await t.http().get(`/api/conversations/${id}/reply-window`).set(bearer(agent.token)));
    expect(window).toMatchObject({ conversationId: id, channel: 'whatsapp', open: true, templates: true, optedOut: false });
    expect(new Date(window.until!).getTime()).toBeGreaterThan(Date.now() + 22 * 3_600_000);

    const sent = data<MessageView>(
      await t.http().post(`/api/agent/conversations/${id}/messages`).set(bearer(agent.token)).send({ text: 'Buenas' }),
    );
    expect(sent).toMatchObject({ text: 'Buenas', deliveryStatus: 'pending', deliveryError: null, attachments: [] });
    const [stored] = await agentMessages(id);
    expect(stored).toMatchObject({ delivery_status: 'pending', channel_account_id: accountId });
    const [job] = await sendJobs(sent.id);
    expect(job!.payload).toMatchObject({ queue: 'channel-send', data: { tenantId, messageId: sent.id } });
  });

  it('refuses free text after 24 hours (409 reply_window_closed) and stores nothing; a template goes', async () => {
    const id = await conversation(25 * 60);
    expect(data<ReplyWindowView>(await t.http().get(`/api/conversations/${id}/reply-window`).set(bearer(agent.token)))).toMatchObject({
      open: false,
      templates: true,
    });
    const refused = await t.http().post(`/api/agent/conversations/${id}/messages`).set(bearer(agent.token)).send({ text: 'Hola otra vez' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ errorCode: 'reply_window_closed' });
    expect(await agentMessages(id)).toEqual([]);

    const wrongCount = await t
      .http()
      .post(`/api/conversations/${id}/template-messages`)
      .set(bearer(agent.token))
      .send({ name: 'order_update', language: 'es', bodyParameters: ['Ana'] });
    expect(wrongCount.status).toBe(400);
    expect(wrongCount.body.errorMessage).toBe('Template order_update takes 2 body parameters (got 1)');
    const unknown = await t
      .http()
      .post(`/api/conversations/${id}/template-messages`)
      .set(bearer(agent.token))
      .send({ name: 'nope', language: 'es', bodyParameters: [] });
    expect(unknown.status).toBe(400);
    expect(await agentMessages(id)).toEqual([]);

    const sent = data<MessageView>(
      await t
        .http()
        .post(`/api/conversations/${id}/template-messages`)
        .set(bearer(agent.token))
        .send({ name: 'order_update', language: 'es', bodyParameters: ['Ana', 'A-17'] }),
    );
    expect(sent).toMatchObject({ text: 'Hola Ana, su pedido A-17 está en camino.', deliveryStatus: 'pending' });
    const [stored] = await agentMessages(id);
    expect(stored!.template).toEqual({ name: 'order_update', language: 'es', bodyParameters: ['Ana', 'A-17'] });
    expect(await sendJobs(sent.id)).toHaveLength(1);
  });

  it("takes a text header's parameters apart from the body's, checks their count, and shows header then body", async () => {
    const id = await conversation(25 * 60);
    const listed = data<TemplateView[]>(await t.http().get(`/api/conversations/${id}/templates`).set(bearer(agent.token)));
    expect(listed.find((template) => template.name === 'ticket_update')).toMatchObject({
      headerText: 'Caso {{1}}',
      headerParameterCount: 1,
    });
    const missingHeader = await t
      .http()
      .post(`/api/conversations/${id}/template-messages`)
      .set(bearer(agent.token))
      .send({ name: 'ticket_update', language: 'es', bodyParameters: ['Ana'] });
    expect(missingHeader.status).toBe(400);
    expect(missingHeader.body.errorMessage).toBe('Template ticket_update takes 1 header parameters (got 0)');
    const blank = await t
      .http()
      .post(`/api/conversations/${id}/template-messages`)
      .set(bearer(agent.token))
      .send({ name: 'ticket_update', language: 'es', bodyParameters: ['Ana'], headerParameters: [''] });
    expect(blank.status).toBe(400);
    expect(await agentMessages(id)).toEqual([]);

    const sent = data<MessageView>(
      await t
        .http()
        .post(`/api/conversations/${id}/template-messages`)
        .set(bearer(agent.token))
        .send({ name: 'ticket_update', language: 'es', bodyParameters: ['Ana'], headerParameters: ['C-9'] }),
    );
    expect(sent.text).toBe('Caso C-9\nHola Ana, su caso avanza.');
    const [stored] = await agentMessages(id);
    expect(stored!.template).toEqual({ name: 'ticket_update', language: 'es', bodyParameters: ['Ana'], headerParameters: ['C-9'] });
  });

  it('refuses any send to a customer who opted out (409 contact_opted_out), storing nothing', async () => {
    const id = await conversation(10, true);
    expect(data<ReplyWindowView>(await t.http().get(`/api/conversations/${id}/reply-window`).set(bearer(agent.token)))).toMatchObject({
      optedOut: true,
    });
    const text = await t.http().post(`/api/agent/conversations/${id}/messages`).set(bearer(agent.token)).send({ text: 'Hola' });
    expect(text.status).toBe(409);
    expect(text.body).toMatchObject({ errorCode: 'contact_opted_out' });
    const template = await t
      .http()
      .post(`/api/conversations/${id}/template-messages`)
      .set(bearer(agent.token))
      .send({ name: 'order_update', language: 'es', bodyParameters: ['Ana', 'A-1'] });
    expect(template.status).toBe(409);
    expect(await agentMessages(id)).toEqual([]);
  });

  it('answers 404 for another tenant’s conversation', async () => {
    const id = await conversation(10);
    const stranger = await createStaff(t, await createTenant(t.dataSource), 'AGENT');
    expect((await t.http().get(`/api/conversations/${id}/reply-window`).set(bearer(stranger.token))).status).toBe(404);
    expect(
      (
        await t
          .http()
          .post(`/api/conversations/${id}/template-messages`)
          .set(bearer(stranger.token))
          .send({ name: 'order_update', language: 'es', bodyParameters: ['a', 'b'] })
      ).status,
    ).toBe(404);
  });
});
