import type { ConversationView, MessageView, SentMessageView, StartChatResult } from '@centralita/contracts';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import { createCampaign, createLine, createStaff, createTenant, data } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(60_000);
const eventually = <T>(assertion: () => T | Promise<T>) => eventuallyWithin(assertion, { intervalMs: 50, timeoutMs: 20_000 });

/**
 * Web chat is the intake's first caller: a started chat is a contact's conversation on its line (the
 * channel account). A message resent after a timeout carries the id of its first attempt (the
 * console mints it once per composed message), and whether the resends overlap the first attempt or
 * follow it, from the widget or the desk, it is stored once.
 */
describe('web chat through the conversation intake', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('opens the chat as the visitor’s contact on the line, and stores a resent message once', async () => {
    const tenant = await createTenant(t.dataSource);
    const lineId = await createLine(t.dataSource, tenant, 'Web');
    const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name: 'Ada' }));
    const [row] = (await t.dataSource.query(
      `SELECT c.channel, c.channel_account_id, c.visitor_id, k.external_id, k.name, k.channel AS contact_channel
       FROM conversations c JOIN contacts k ON k.id = c.contact_id WHERE c.id = $1`,
      [started.conversation.id],
    )) as Record<string, string>[];
    expect(row).toEqual({
      channel: 'webchat',
      channel_account_id: lineId,
      visitor_id: started.visitorId,
      external_id: started.visitorId,
      name: 'Ada',
      contact_channel: 'webchat',
    });

    // The first attempt and its resends at once (a slow answer retried), then once more afterwards.
    const send = () =>
      t
        .http()
        .post('/api/webchat/conversation/messages')
        .set(bearer(started.visitorToken))
        .send({ text: 'Hello', clientMessageId: 'm-once' });
    const answers = (await Promise.all([send(), send(), send()])).map((response) => data<MessageView>(response));
    const later = data<MessageView>(await send());
    expect(new Set([...answers, later].map((message) => message.id)).size).toBe(1);
    const stored = (await t.dataSource.query(`SELECT text, client_message_id FROM messages WHERE conversation_id = $1`, [
      started.conversation.id,
    ])) as { text: string; client_message_id: string }[];
    expect(stored).toEqual([{ text: 'Hello', client_message_id: 'm-once' }]);
  });

  it('answers a customer’s message with the conversation’s version it made, and a resend with the version it was found at', async () => {
    const tenant = await createTenant(t.dataSource);
    const lineId = await createLine(t.dataSource, tenant, 'Versions');
    const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name: 'Cy' }));
    const id = started.conversation.id;
    const send = (text: string, clientMessageId: string) =>
      t.http().post('/api/webchat/conversation/messages').set(bearer(started.visitorToken)).send({ text, clientMessageId }).expect(200);
    const lastLogged = async () =>
      Number(
        (
          (await t.dataSource.query(
            `SELECT max(version) AS version FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1`,
            [id],
          )) as { version: string }[]
        )[0].version,
      );

    const first = data<SentMessageView>(await send('One', 'v-1'));
    // The message stepped the machine (conversation.messageReceived): the answer names that step's version.
    expect(first.conversationVersion).toBeGreaterThan(started.conversation.version);
    expect(first.conversationVersion).toBe(await lastLogged());
    const second = data<SentMessageView>(await send('Two', 'v-2'));
    expect(second.conversationVersion).toBe(first.conversationVersion + 1);
    expect(second.conversationVersion).toBe(await lastLogged());
    // A resend of the first steps nothing and answers the version the conversation is at now.
    const resent = data<SentMessageView>(await send('One', 'v-1'));
    expect(resent).toMatchObject({ id: first.id, sequence: first.sequence, conversationVersion: second.conversationVersion });
    const current = data<{ conversation: ConversationView }>(
      await t.http().get('/api/webchat/conversation').set(bearer(started.visitorToken)),
    );
    expect(current.conversation.version).toBe(second.conversationVersion);
  });

  it('stores an agent’s resent reply once', async () => {
    const tenant = await createTenant(t.dataSource);
    const lineId = await createLine(t.dataSource, tenant, 'Desk');
    const campaignId = await createCampaign(t.dataSource, tenant, 1);
    const agent = await createStaff(t, tenant, 'AGENT', [lineId]);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name: 'Bo' }));
    await t
      .http()
      .post('/api/webchat/conversation/menu')
      .set(bearer(started.visitorToken))
      .send({ queryTypeId: 'q', submenuId: 's' })
      .expect(200);
    const id = started.conversation.id;
    await eventually(async () => {
      const mine = data<ConversationView[]>(await t.http().get('/api/agent/conversations').set(bearer(agent.token)));
      expect(mine.find((view) => view.id === id)).toMatchObject({ status: 'Active' });
    });

    const reply = () =>
      t.http().post(`/api/agent/conversations/${id}/messages`).set(bearer(agent.token)).send({ text: 'On it', clientMessageId: 'a-once' });
    const answers = (await Promise.all([reply(), reply()])).map((response) => data<MessageView>(response));
    const later = data<MessageView>(await reply());
    expect(new Set([...answers, later].map((message) => message.id)).size).toBe(1);
    const stored = (await t.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1`, [id])) as {
      n: number;
    }[];
    expect(stored[0].n).toBe(1);
  });
});
