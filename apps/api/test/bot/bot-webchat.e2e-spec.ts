import { randomBytes } from 'node:crypto';
import type {
  AgentView,
  BotAnswerView,
  BotSettingsView,
  BotSummaryView,
  BotUnansweredView,
  ConversationView,
  MessageView,
  StartChatResult,
  WebchatLineView,
} from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import type { VisitorConversation } from '../../src/modules/conversations/webchat.service';
import { twoTenants, type TestTenant } from '../support/factories';
import { createCampaign, createLine, createStaff, data, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/** Words of this run only: the QnA of other suites (and tenant B's) never shares them. */
const tag = randomBytes(3).toString('hex');
const HOURS_ANSWER = `Atendemos de lunes a viernes de 9 a 18 (${tag}).`;
const REFUND_ANSWER = `Refunds take five business days (${tag}).`;
const SECRET_ANSWER = `The vault code of tenant B is 4321 (${tag}).`;

describe('the bot in front of a web-chat line (issue 23)', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let adminA: string;
  let adminB: string;
  let agentA: string;
  let lineA: string;
  let lineB: string;
  let campaignId: string;
  let agent: StaffMember;

  beforeAll(async () => {
    t = await startTestApp();
    let tenantB: TestTenant;
    ({ tenantA, tenantB, adminA, adminB, agentA } = await twoTenants(t));
    campaignId = await createCampaign(t.dataSource, tenantA, 5);
    lineA = await createLine(t.dataSource, tenantA, `Bot line ${tag}`, { campaignId });
    lineB = await createLine(t.dataSource, tenantB, `Bot line B ${tag}`);
    agent = await createStaff(t, tenantA, 'AGENT', [lineA]);
    await t.dataSource.query(`INSERT INTO agent_campaigns (user_id, campaign_id, tenant_id) VALUES ($1, $2, $3)`, [
      agent.userId,
      campaignId,
      tenantA.client.id,
    ]);
    const qna = (token: string, question: string, answer: string) =>
      t.http().post('/api/qna').set(bearer(token)).send({ question, answer }).expect(200);
    await qna(adminA, `¿Cuál es el horario de atención de la tienda?`, HOURS_ANSWER);
    await qna(adminA, `How do I get a refund for my order?`, REFUND_ANSWER);
    await qna(adminB, `What is the vault code of the warehouse?`, SECRET_ANSWER);
  });
  afterAll(async () => {
    await t.close();
  });

  const enable = (token: string, lineId: string, body: Record<string, unknown>) =>
    t.http().put(`/api/bot/lines/${lineId}`).set(bearer(token)).send(body);

  async function startChat(): Promise<{ id: string; auth: { Authorization: string } }> {
    const started = data<StartChatResult>(
      await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineA, name: 'Ana Bot', email: 'ana@example.com' }),
    );
    return { id: started.conversation.id, auth: bearer(started.visitorToken) };
  }
  const visitorView = async (auth: { Authorization: string }) =>
    data<VisitorConversation>(await t.http().get('/api/webchat/conversation').set(auth));
  const say = async (auth: { Authorization: string }, text: string) =>
    data<MessageView>(await t.http().post('/api/webchat/conversation/messages').set(auth).send({ text }));
  const botTexts = (messages: MessageView[]) => messages.filter((message) => message.senderKind === 'bot').map((message) => message.text);

  describe('line settings', () => {
    it('answers the defaults (disabled) for a line never configured', async () => {
      const settings = data<BotSettingsView>(await t.http().get(`/api/bot/lines/${lineA}`).set(bearer(adminA)));
      expect(settings).toMatchObject({ attentionLineId: lineA, botEnabled: false, maxTurns: 8, minScore: 0.5 });
      expect(settings.handoffKeywords).toEqual(expect.arrayContaining(['agente', 'humano', 'persona', 'agent', 'human', 'operator']));
    });

    it('refuses hostile settings with a 400 naming the field, and stores nothing', async () => {
      for (const [body, field] of [
        [{ minScore: 5 }, 'minScore'],
        [{ maxTurns: 'many' }, 'maxTurns'],
        [{ handoffKeywords: [] }, 'handoffKeywords'],
        [{ texts: { fr: { greeting: 'Bonjour' } } }, 'texts'],
        [{ texts: { es: { greeting: 'x'.repeat(501) } } }, 'texts.es.greeting'],
        [{ botEnabled: 'yes' }, 'botEnabled'],
      ] as const) {
        const response = await enable(adminA, lineA, body);
        expect(response.status).toBe(400);
        expect(Object.keys(response.body.data.fields)).toEqual([field]);
      }
      expect(data<BotSettingsView>(await t.http().get(`/api/bot/lines/${lineA}`).set(bearer(adminA))).botEnabled).toBe(false);
    });

    it("answers 404 for another tenant's line and 403 to an agent", async () => {
      expect((await t.http().get(`/api/bot/lines/${lineB}`).set(bearer(adminA))).status).toBe(404);
      expect((await enable(adminA, lineB, { botEnabled: true })).status).toBe(404);
      expect((await t.http().get(`/api/bot/lines/${lineA}`).set(bearer(agentA))).status).toBe(403);
    });
  });

  describe('the test panel', () => {
    const ask = async (text: string, token = adminA, lineId = lineA) =>
      data<BotAnswerView>(await t.http().post('/api/bot/test').set(bearer(token)).send({ attentionLineId: lineId, text }));

    it('answers a known question in Spanish and in English with its score, before the bot is enabled', async () => {
      expect(await ask('¿Qué horarios tiene la tienda?')).toMatchObject({ language: 'es', confident: true, score: 1, reply: HOURS_ANSWER });
      expect(await ask('How can I get my order refunded?')).toMatchObject({ language: 'en', confident: true, reply: REFUND_ANSWER });
    });

    it("says it does not know an unknown question, and never answers from another tenant's QnA", async () => {
      const unknown = await ask('Do you sell purple bicycles?');
      expect(unknown).toMatchObject({ confident: false, qnaId: null });
      expect(unknown.reply).toMatch(/don't know/);
      const secret = await ask('What is the vault code of the warehouse?');
      expect(secret.confident).toBe(false);
      expect(secret.reply).not.toContain('4321');
      // Tenant B's own bot does answer it.
      expect((await ask('What is the vault code of the warehouse?', adminB, lineB)).reply).toBe(SECRET_ANSWER);
    });

    it('sees a QnA entry created a moment ago (the index is rebuilt on QnA changes)', async () => {
      const question = `¿Aceptan pagos con tarjeta ${tag}?`;
      expect((await ask(question)).confident).toBe(false);
      await t
        .http()
        .post('/api/qna')
        .set(bearer(adminA))
        .send({ question, answer: `Sí, todas las tarjetas (${tag}).` })
        .expect(200);
      expect(await ask(question)).toMatchObject({ confident: true, reply: `Sí, todas las tarjetas (${tag}).` });
    });

    it('refuses an empty question and a malformed line id with a 400', async () => {
      expect((await t.http().post('/api/bot/test').set(bearer(adminA)).send({ attentionLineId: lineA, text: '  ' })).status).toBe(400);
      expect((await t.http().post('/api/bot/test').set(bearer(adminA)).send({ attentionLineId: 'x', text: 'hola' })).status).toBe(400);
    });
  });

  describe('a customer with the bot', () => {
    beforeAll(async () => {
      data(await enable(adminA, lineA, { botEnabled: true, maxTurns: 10 }));
    });

    it('greets, answers in Spanish and in English, says it does not know, hands off on "agente", and is silent afterwards', async () => {
      const info = data<WebchatLineView>(await t.http().get(`/api/webchat/lines/${lineA}`));
      expect(info.bot).toBe(true);
      const { id, auth } = await startChat();
      expect(botTexts((await visitorView(auth)).messages)).toEqual([expect.stringMatching(/asistente virtual/)]);

      await say(auth, '¿Cuál es el horario de la tienda?');
      const unknownQuestion = `Do you repair ${tag} drones?`;
      await say(auth, unknownQuestion);
      await say(auth, 'How do I get a refund?');
      // Tenant B's answer is never given to tenant A's customer.
      await say(auth, 'What is the vault code of the warehouse?');
      let seen = await visitorView(auth);
      // One answer it was sure of between the two it was not: still with the bot.
      expect(seen.conversation.status).toBe('Transitory');
      const replies = botTexts(seen.messages);
      expect(replies[1]).toBe(HOURS_ANSWER);
      expect(replies[2]).toMatch(/don't know/);
      expect(replies[3]).toBe(REFUND_ANSWER);
      expect(replies[4]).toMatch(/don't know/);
      expect(replies.join('\n')).not.toContain('4321');

      // The unknown question is in the administrator's report.
      const report = data<BotUnansweredView[]>(await t.http().get(`/api/bot/unanswered?lineId=${lineA}`).set(bearer(adminA)));
      expect(report.find((row) => row.text === unknownQuestion)).toMatchObject({ count: 1, language: 'en', attentionLineId: lineA });

      // Asking for a person: the bot says so and the machine queues it under query type 'bot'.
      await say(auth, 'Quiero hablar con un agente, por favor');
      seen = await visitorView(auth);
      expect(seen.conversation.status).toBe('LiningUp');
      expect(botTexts(seen.messages).at(-1)).toMatch(/persona/);
      const [context] = (await t.dataSource.query(
        `SELECT snapshot->'context'->>'queryTypeId' AS query_type, snapshot->'context'->>'submenuId' AS submenu FROM conversations WHERE id = $1`,
        [id],
      )) as { query_type: string; submenu: string }[];
      expect(context).toEqual({ query_type: 'bot', submenu: 'request' });
      const log = (await t.dataSource.query(
        `SELECT event, to_state, actor_kind FROM transition_log WHERE entity_id = $1 AND event = 'conversation.menuCompleted'`,
        [id],
      )) as { event: string; to_state: string; actor_kind: string }[];
      expect(log).toEqual([{ event: 'conversation.menuCompleted', to_state: 'LiningUp', actor_kind: 'system' }]);

      // A person takes it and sees the whole transcript, the bot's answers included, and the bot's summary.
      data<AgentView>(await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }));
      await eventually(async () => expect((await visitorView(auth)).conversation.status).toBe('Active'), { timeoutMs: 20_000 });
      const transcript = data<MessageView[]>(await t.http().get(`/api/agent/conversations/${id}/messages`).set(bearer(agent.token)));
      expect(transcript.map((message) => message.senderKind)).toEqual([
        'bot',
        'customer',
        'bot',
        'customer',
        'bot',
        'customer',
        'bot',
        'customer',
        'bot',
        'customer',
        'bot',
      ]);
      expect(transcript.map((message) => message.text)).toEqual(expect.arrayContaining([HOURS_ANSWER, REFUND_ANSWER, unknownQuestion]));
      const summary = data<BotSummaryView>(await t.http().get(`/api/bot/conversations/${id}`).set(bearer(agent.token)));
      expect(summary).toMatchObject({ conversationId: id, turns: 5, handoffReason: 'request' });
      expect(summary.answered.map((one) => one.question)).toEqual(['¿Cuál es el horario de la tienda?', 'How do I get a refund?']);
      expect(summary.answered[0]!.qnaQuestion).toBe('¿Cuál es el horario de atención de la tienda?');
      expect(summary.unanswered).toEqual([unknownQuestion, 'What is the vault code of the warehouse?']);
      // Another tenant's administrator: 404.
      expect((await t.http().get(`/api/bot/conversations/${id}`).set(bearer(adminB))).status).toBe(404);

      // After the handoff the bot never speaks again, whatever the customer writes.
      const before = botTexts((await visitorView(auth)).messages).length;
      await say(auth, '¿Cuál es el horario de la tienda?');
      await say(auth, 'agente');
      await t.http().post(`/api/agent/conversations/${id}/messages`).set(bearer(agent.token)).send({ text: 'Hola, soy Marta' }).expect(200);
      await eventually(async () => expect((await visitorView(auth)).messages.at(-1)?.text).toBe('Hola, soy Marta'));
      expect(botTexts((await visitorView(auth)).messages)).toHaveLength(before);
      await t.http().post(`/api/agent/conversations/${id}/close`).set(bearer(agent.token)).send({ disposition: 'done' }).expect(200);
    });

    it('hands off after two answers it is not sure of', async () => {
      const { id, auth } = await startChat();
      await say(auth, `¿Venden ${tag} paraguas?`);
      expect((await visitorView(auth)).conversation.status).toBe('Transitory');
      await say(auth, `¿Y ${tag} sombreros de copa?`);
      const seen = await visitorView(auth);
      expect(seen.conversation.status).not.toBe('Transitory');
      const summary = data<BotSummaryView>(await t.http().get(`/api/bot/conversations/${id}`).set(bearer(adminA)));
      expect(summary.handoffReason).toBe('lowConfidence');
    });

    it('hands off when the customer presses "talk to a person", and refuses it (409) once queued', async () => {
      const { auth } = await startChat();
      const queued = data<ConversationView>(await t.http().post('/api/webchat/conversation/bot/handoff').set(auth));
      expect(queued.status).not.toBe('Transitory');
      expect(botTexts((await visitorView(auth)).messages).at(-1)).toMatch(/persona/);
      expect((await t.http().post('/api/webchat/conversation/bot/handoff').set(auth)).status).toBe(409);
      expect((await t.http().post('/api/webchat/conversation/bot/handoff')).status).toBe(401);
    });

    it("hands off after the line's maximum of turns", async () => {
      data(await enable(adminA, lineA, { maxTurns: 2 }));
      try {
        const { id, auth } = await startChat();
        await say(auth, '¿Cuál es el horario de la tienda?');
        expect((await visitorView(auth)).conversation.status).toBe('Transitory');
        await say(auth, 'How do I get a refund?');
        expect((await visitorView(auth)).conversation.status).not.toBe('Transitory');
        expect(data<BotSummaryView>(await t.http().get(`/api/bot/conversations/${id}`).set(bearer(adminA))).handoffReason).toBe('maxTurns');
      } finally {
        data(await enable(adminA, lineA, { maxTurns: 10 }));
      }
    });
  });

  describe('the unanswered report', () => {
    it("marks a question resolved and reopens it; another tenant's id answers 404", async () => {
      const open = data<BotUnansweredView[]>(await t.http().get('/api/bot/unanswered').set(bearer(adminA)));
      const row = open.find((one) => one.text.includes(tag))!;
      expect(row).toBeDefined();
      expect((await t.http().post(`/api/bot/unanswered/${row.id}/resolve`).set(bearer(adminB)).send({})).status).toBe(404);
      data(await t.http().post(`/api/bot/unanswered/${row.id}/resolve`).set(bearer(adminA)).send({}));
      expect(data<BotUnansweredView[]>(await t.http().get('/api/bot/unanswered').set(bearer(adminA))).map((one) => one.id)).not.toContain(
        row.id,
      );
      const resolved = data<BotUnansweredView[]>(await t.http().get('/api/bot/unanswered?resolved=true').set(bearer(adminA)));
      expect(resolved.find((one) => one.id === row.id)?.resolvedAt).toEqual(expect.any(String));
      expect(data<BotUnansweredView[]>(await t.http().get('/api/bot/unanswered').set(bearer(adminB))).map((one) => one.id)).not.toContain(
        row.id,
      );
    });

    it('keeps synonyms per tenant and uses them at once', async () => {
      const ask = async () =>
        data<BotAnswerView>(
          await t.http().post('/api/bot/test').set(bearer(adminA)).send({ attentionLineId: lineA, text: 'reembolso del pedido' }),
        );
      expect((await ask()).confident).toBe(false);
      data(
        await t
          .http()
          .put('/api/bot/synonyms')
          .set(bearer(adminA))
          .send({ groups: [{ terms: ['reembolso', 'refund'] }, { terms: ['pedido', 'order'] }] }),
      );
      expect(await ask()).toMatchObject({ confident: true, reply: REFUND_ANSWER });
      expect(data<unknown[]>(await t.http().get('/api/bot/synonyms').set(bearer(adminB)))).toEqual([]);
      expect(
        (
          await t
            .http()
            .put('/api/bot/synonyms')
            .set(bearer(adminA))
            .send({ groups: [{ terms: ['solo'] }] })
        ).status,
      ).toBe(400);
    });
  });
});
