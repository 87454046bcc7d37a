import { randomBytes, randomInt } from 'node:crypto';
import type { ChannelAccountView, ChannelKindView, MessageView } from '@centralita/contracts';
import request from 'supertest';
import { startXFake, type XFake } from '../../../../test/fakes/x';
import { eventually } from '../../../../test/support/eventually';
import { data } from '../support/realtime';
import { bearer } from '../support/test-app';
import {
  agentSends,
  answeredConversation,
  channelTenant,
  closeHeld,
  connectAccount,
  deliveryOf,
  deskMessages,
  messagesOf,
  startChannelStack,
  STACK_START_MS,
  webhookUrlOn,
  type ChannelStack,
  type ChannelTenant,
} from './support/telegram-x-e2e';

jest.setTimeout(60_000);

/**
 * X direct messages end to end over real PostgreSQL and Redis, with CHANNEL_X_ENABLED=on for the
 * API: the X fake (test/fakes/x.ts) runs X's CRC against the webhook and posts signed Account
 * Activity payloads, the API queues the customer to the agent, and the real worker's channel-send
 * processor sends the reply through X API v2 with OAuth 1.0a, which the fake verifies.
 */
describe('X channel end to end (API, worker, X fake)', () => {
  // X user ids of this run's own: accounts are unique by (kind, user id) across the shared database.
  const accountUserId = String(randomInt(1_000_000_000, 9_000_000_000));
  const credentials = {
    consumerKey: `ck-${randomBytes(8).toString('hex')}`,
    consumerSecret: `cs-${randomBytes(16).toString('hex')}`,
    accessToken: `${accountUserId}-${randomBytes(12).toString('hex')}`,
    accessTokenSecret: `ats-${randomBytes(16).toString('hex')}`,
  };
  let fake: XFake;
  let stack: ChannelStack;
  let who: ChannelTenant;
  let account: ChannelAccountView;
  let nextCustomer = randomInt(100_000_000, 900_000_000);
  const newCustomer = () => String(nextCustomer++);

  beforeAll(async () => {
    fake = await startXFake({ accountUserId, accountName: 'Soporte', accountUsername: 'soporte', ...credentials, retryDelayMs: 50 });
    stack = await startChannelStack({ X_API_URL: fake.url, CHANNEL_X_ENABLED: 'on' });
    who = await channelTenant(stack.a);
    account = await connectAccount(stack.a, who, { kind: 'twitter', externalAccountId: accountUserId, secrets: credentials });
    fake.setWebhookUrl(webhookUrlOn(stack.a.url, account));
  }, STACK_START_MS);
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });
  afterEach(() => closeHeld(a(), who));

  const a = () => stack.a;
  const sql = <T>(text: string, values: unknown[]) => a().dataSource.query(text, values) as Promise<T[]>;
  const unprocessedEvents = async () =>
    (
      await sql<{ n: number }>(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [account.id])
    )[0]!.n;

  it('offers webhook registration for X accounts (the adapter registers the URL and subscribes the account: twitter.adapter.spec)', async () => {
    const kinds = (await a().http().get('/api/channel-kinds').set(bearer(who.admin)).expect(200)).body.data as ChannelKindView[];
    expect(kinds.find((kind) => kind.kind === 'twitter')?.registersWebhook).toBe(true);
  });

  it("answers X's CRC with the response_token (HMAC-SHA256 of the consumer secret), and 401 to an unsigned POST", async () => {
    const crc = await fake.crcCheck();
    expect(crc).toMatchObject({ ok: true, status: 200 });
    const before = (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1`, [account.id]))[0]!.n;
    const body = JSON.stringify({ for_user_id: accountUserId, direct_message_events: [] });
    const forged = await request(stack.urlB)
      .post(`/api/channels/twitter/${account.id}/webhook`)
      .set('Content-Type', 'application/json')
      .set('x-twitter-webhooks-signature', `sha256=${Buffer.alloc(32).toString('base64')}`)
      .send(body);
    expect(forged.status).toBe(401);
    expect((await sql<{ n: number }>(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1`, [account.id]))[0]!.n).toBe(
      before,
    );
  });

  it('customer DM → queued → the agent gets it → replies → OAuth1-signed v2 DM → read receipt → read; echoes are not stored', async () => {
    const customer = newCustomer();
    const written = await fake.customerWrites({
      senderId: customer,
      name: 'Jordan',
      screenName: 'jordan',
      text: 'Hola, mi pedido no llegó',
    });
    expect(written.deliveries.map((delivery) => delivery.statuses)).toEqual([[200]]);
    const conversationId = await answeredConversation(a(), who, account.id, customer);
    expect(await deskMessages(a(), who, conversationId)).toEqual([
      expect.objectContaining({ senderKind: 'customer', text: 'Hola, mi pedido no llegó' }),
    ]);
    expect((await messagesOf(a(), conversationId))[0]!.external_id).toBe(written.dmEventIds[0]);

    const reply = data<MessageView>(await agentSends(a(), who, conversationId, 'Hola Jordan, lo reviso ahora'));
    expect(reply.deliveryStatus).toBe('pending');
    const sent = await deliveryOf(a(), reply.id, 'sent');
    const dm = fake.sent.find((one) => one.participantId === customer);
    // The fake recomputes the OAuth 1.0a HMAC-SHA1 signature and refuses a wrong one with 401.
    expect(dm).toMatchObject({ text: 'Hola Jordan, lo reviso ahora', auth: 'oauth1' });
    expect(sent.provider_message_id).toBe(dm!.dmEventId);
    expect(fake.requests.filter((one) => one.path === `/2/dm_conversations/with/${customer}/messages`)).toEqual([
      { method: 'POST', path: `/2/dm_conversations/with/${customer}/messages`, status: 201 },
    ]);

    // X echoes the account's own DMs (sent from here or from the X app) to the webhook: not customer messages.
    const echo = await fake.deliver({
      for_user_id: accountUserId,
      direct_message_events: [
        {
          type: 'message_create',
          id: dm!.dmEventId,
          created_timestamp: String(Date.now()),
          message_create: {
            target: { recipient_id: customer },
            sender_id: accountUserId,
            message_data: { text: dm!.text, entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] } },
          },
        },
      ],
      users: {
        [accountUserId]: { id: accountUserId, name: 'Soporte', screen_name: 'soporte' },
        [customer]: { id: customer, name: 'Jordan', screen_name: 'jordan' },
      },
    });
    expect(echo.statuses).toEqual([200]);

    const [receipt] = await fake.pushReceipts([dm!.dmEventId]);
    expect(receipt!.statuses).toEqual([200]);
    await deliveryOf(a(), reply.id, 'read');
    await eventually(async () => expect(await unprocessedEvents()).toBe(0));
    expect((await messagesOf(a(), conversationId)).map((one) => [one.sender_kind, one.text, one.delivery_status])).toEqual([
      ['customer', 'Hola, mi pedido no llegó', null],
      ['agent', 'Hola Jordan, lo reviso ahora', 'read'],
    ]);
    await eventually(async () =>
      expect((await deskMessages(a(), who, conversationId)).find((one) => one.id === reply.id)?.deliveryStatus).toBe('read'),
    );
  });

  it('with X switched off the kind is not offered, accounts cannot be connected, and its webhook answers 404', async () => {
    const kindOf = async () =>
      data<ChannelKindView[]>(await a().http().get('/api/channel-kinds').set(bearer(who.admin))).find((kind) => kind.kind === 'twitter');
    expect(await kindOf()).toMatchObject({ enabled: true, secrets: ['consumerKey', 'consumerSecret', 'accessToken', 'accessTokenSecret'] });
    // The API reads the switch on every request: turning it off needs no restart.
    process.env.CHANNEL_X_ENABLED = 'off';
    try {
      expect(await kindOf()).toMatchObject({ enabled: false });
      const refused = await a()
        .http()
        .post('/api/channel-accounts')
        .set(bearer(who.admin))
        .send({ kind: 'twitter', name: 'X', externalAccountId: newCustomer(), attentionLineId: who.lineId, secrets: credentials });
      expect(refused.status).toBe(400);
      expect((await fake.crcCheck()).status).toBe(404);
      const customer = newCustomer();
      const written = await fake.customerWrites({ senderId: customer, text: 'Hola' });
      expect(written.deliveries[0]!.statuses.every((status) => status === 404)).toBe(true);
      expect(
        (
          await sql<{ n: number }>(`SELECT count(*)::int AS n FROM contacts WHERE channel_account_id = $1 AND external_id = $2`, [
            account.id,
            customer,
          ])
        )[0]!.n,
      ).toBe(0);
    } finally {
      process.env.CHANNEL_X_ENABLED = 'on';
    }
  });
});
