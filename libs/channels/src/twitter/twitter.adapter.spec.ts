import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startXFake, type XFake } from '../../../../test/fakes/x';
import { eventually } from '../../../../test/support/eventually';
import type { ChannelAccount, ChannelAdapter, InboundEvent, WebhookVerdict } from '../adapter';
import { ChannelError, WebhookPayloadError } from '../adapter';
import { DEFAULT_CHANNEL_ENDPOINTS } from '../endpoints';
import { createChannelRegistry } from '../registry';
import { X_CAPABILITIES, xChannelEnabled } from './capabilities';
import { oauth1AuthorizationHeader } from './oauth1';
import { createTwitterAdapter } from './twitter.adapter';
import { xWebhookSignature } from './webhook';

const ACCOUNT_USER_ID = '4337869213';
const CUSTOMER = '3001969357';
const secrets = {
  consumerKey: 'fake-consumer-key',
  consumerSecret: 'fake-consumer-secret',
  accessToken: `${ACCOUNT_USER_ID}-fake-access-token`,
  accessTokenSecret: 'fake-access-token-secret',
};
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/** A stand-in for the platform's webhook endpoint: the adapter verifies and parses what the fake pushes. */
interface Receiver {
  url: string;
  server: Server;
  verdicts: WebhookVerdict[];
  events: InboundEvent[];
  /** Statuses to answer to the next POSTs (then 200). */
  answerNext: number[];
}

function account(overrides: Partial<ChannelAccount> = {}): ChannelAccount {
  return {
    id: 'acc-1',
    kind: 'twitter',
    externalAccountId: ACCOUNT_USER_ID,
    settings: {},
    secrets: { ...secrets },
    verifyToken: 'unused',
    ...overrides,
  };
}

async function startReceiver(adapter: ChannelAdapter, target: ChannelAccount): Promise<Receiver> {
  const receiver: Receiver = { url: '', server: undefined as unknown as Server, verdicts: [], events: [], answerNext: [] };
  receiver.server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://localhost');
    const verdict = adapter.verifyWebhook(
      {
        method: request.method as 'GET' | 'POST',
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])),
        rawBody: Buffer.concat(chunks),
      },
      target,
    );
    receiver.verdicts.push(verdict);
    if (verdict.kind === 'challenge') {
      response.writeHead(200, { 'content-type': verdict.contentType }).end(verdict.body);
      return;
    }
    if (verdict.kind === 'refused') {
      response.writeHead(401).end();
      return;
    }
    const forced = receiver.answerNext.shift();
    if (forced) {
      response.writeHead(forced).end();
      return;
    }
    receiver.events.push(...adapter.parseWebhook(Buffer.concat(chunks), target));
    response.writeHead(200).end();
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/api/channels/twitter/acc-1/webhook`;
  return receiver;
}

async function channelError(promise: Promise<unknown>): Promise<ChannelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChannelError);
  return error as ChannelError;
}

function parseError(run: () => unknown): WebhookPayloadError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookPayloadError);
    return error as WebhookPayloadError;
  }
  throw new Error('expected WebhookPayloadError');
}

describe('X (Twitter) DM adapter against the X fake', () => {
  let x: XFake;
  let adapter: ChannelAdapter;
  let receiver: Receiver;

  beforeAll(async () => {
    x = await startXFake({
      accountUserId: ACCOUNT_USER_ID,
      accountName: 'Soporte Centralita',
      accountUsername: 'centralita',
      oauth2UserToken: 'fake-oauth2-user-token',
      retryDelayMs: 5,
      ...secrets,
    });
    adapter = createTwitterAdapter({ ...DEFAULT_CHANNEL_ENDPOINTS, xApiUrl: x.url });
    receiver = await startReceiver(adapter, account());
    x.setWebhookUrl(receiver.url);
  });

  afterAll(async () => {
    await x.close();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  beforeEach(() => {
    receiver.events.length = 0;
    receiver.verdicts.length = 0;
  });

  describe('registration and capabilities', () => {
    it('is registered under `twitter` and stays off unless CHANNEL_X_ENABLED=on', () => {
      expect(createChannelRegistry(DEFAULT_CHANNEL_ENDPOINTS).get('twitter')?.kind).toBe('twitter');
      expect(xChannelEnabled({})).toBe(false);
      expect(xChannelEnabled({ CHANNEL_X_ENABLED: 'off' })).toBe(false);
      expect(xChannelEnabled({ CHANNEL_X_ENABLED: 'true' })).toBe(false);
      expect(xChannelEnabled({ CHANNEL_X_ENABLED: ' ON ' })).toBe(true);
    });

    it('declares X DM limits as data', () => {
      expect(adapter.capabilities).toBe(X_CAPABILITIES);
      expect(X_CAPABILITIES).toMatchObject({
        textLimit: 10_000,
        receipts: { delivered: false, read: true },
        typing: true,
        replyWindowHours: null,
        templates: false,
      });
      expect(X_CAPABILITIES.attachments.image?.maxBytes).toBe(5 * 1024 * 1024);
      expect(X_CAPABILITIES.attachments.video).toEqual({ maxBytes: 512 * 1024 * 1024, mimeTypes: ['video/mp4'] });
      expect(adapter.credentials.secrets).toEqual(
        expect.arrayContaining(['consumerKey', 'consumerSecret', 'accessToken', 'accessTokenSecret']),
      );
    });
  });

  describe('registerWebhook (X API v2 webhooks + Account Activity subscription)', () => {
    it("registers the URL after X's CRC passes, subscribes the account, and is idempotent", async () => {
      expect(typeof adapter.registerWebhook).toBe('function');
      await adapter.registerWebhook!(account(), receiver.url);
      const hooks = [...x.webhooks.values()].filter((hook) => hook.url === receiver.url);
      expect(hooks).toHaveLength(1);
      expect(hooks[0].valid).toBe(true);
      expect(x.subscriptions.has(hooks[0].id)).toBe(true);
      // X refuses a duplicate URL and a duplicate subscription: a second registration reuses both.
      await adapter.registerWebhook!(account(), receiver.url);
      expect([...x.webhooks.values()].filter((hook) => hook.url === receiver.url)).toHaveLength(1);
      const calls = x.requests.map((request) => `${request.method} ${request.path.split('?')[0]}`);
      expect(calls.filter((call) => call === 'POST /2/webhooks')).toHaveLength(1);
      expect(calls.filter((call) => call.startsWith('POST /2/account_activity/'))).toHaveLength(1);
    });

    it("fails with X's reason when the URL does not answer the CRC (nothing registered)", async () => {
      const before = x.webhooks.size;
      // Port 9 (discard) on loopback: nothing listens, so X's CRC request gets no answer.
      const error = await adapter.registerWebhook!(account(), 'http://127.0.0.1:9/webhook').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ChannelError);
      expect((error as ChannelError).message).toMatch(/CrcValidationFailed/);
      expect((error as ChannelError).details.retryable).toBe(false);
      expect(x.webhooks.size).toBe(before);
    });

    it('fails clearly when the consumer secret is wrong (no app-only token)', async () => {
      const wrong = { ...account(), secrets: { ...account().secrets, consumerSecret: 'not-the-secret' } };
      const error = await adapter.registerWebhook!(wrong, receiver.url).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ChannelError);
      expect((error as ChannelError).message).toMatch(/Unable to verify your credentials.*app-only token/);
    });
  });

  describe('verifyWebhook', () => {
    it("answers X's CRC with the base64 HMAC-SHA256 response_token as JSON", async () => {
      const crc = await x.crcCheck();
      expect(crc.ok).toBe(true);
      expect(receiver.verdicts[0]).toMatchObject({ kind: 'challenge', contentType: 'application/json' });
    });

    it('computes the CRC token exactly', () => {
      const verdict = adapter.verifyWebhook(
        { method: 'GET', query: { crc_token: 'abc' }, headers: {}, rawBody: Buffer.alloc(0) },
        account(),
      );
      expect(verdict).toEqual({
        kind: 'challenge',
        contentType: 'application/json',
        body: JSON.stringify({
          response_token: `sha256=${createHmac('sha256', secrets.consumerSecret).update('abc').digest('base64')}`,
        }),
      });
    });

    it('refuses a CRC without crc_token, or for an account without consumer secret', () => {
      expect(adapter.verifyWebhook({ method: 'GET', query: {}, headers: {}, rawBody: Buffer.alloc(0) }, account()).kind).toBe('refused');
      expect(
        adapter.verifyWebhook(
          { method: 'GET', query: { crc_token: 'abc' }, headers: {}, rawBody: Buffer.alloc(0) },
          account({ secrets: {} }),
        ).kind,
      ).toBe('refused');
    });

    it('verifies a POST signed by X and refuses forged, missing and wrong-secret signatures', () => {
      const body = Buffer.from(JSON.stringify({ for_user_id: ACCOUNT_USER_ID, direct_message_events: [] }));
      const good = x.signatureOf(body);
      const post = (headers: Record<string, string | undefined>, raw = body, target = account()) =>
        adapter.verifyWebhook({ method: 'POST', query: {}, headers, rawBody: raw }, target).kind;
      expect(post({ 'x-twitter-webhooks-signature': good })).toBe('verified');
      expect(post({ 'x-twitter-webhooks-signature': good }, Buffer.concat([body, Buffer.from(' ')]))).toBe('refused');
      expect(post({ 'x-twitter-webhooks-signature': xWebhookSignature('another-secret', body) })).toBe('refused');
      expect(post({ 'x-twitter-webhooks-signature': good.replace('sha256=', 'sha1=') })).toBe('refused');
      expect(post({})).toBe('refused');
      expect(post({ 'x-twitter-webhooks-signature': good }, body, account({ secrets: { ...secrets, consumerSecret: 'other' } }))).toBe(
        'refused',
      );
    });

    it('never throws, whatever it is given', () => {
      const hostile = { method: 'PUT', query: null, headers: {}, rawBody: 'not a buffer' } as unknown as Parameters<
        ChannelAdapter['verifyWebhook']
      >[0];
      expect(adapter.verifyWebhook(hostile, account()).kind).toBe('refused');
      expect(adapter.verifyWebhook(hostile, { secrets: null } as unknown as ChannelAccount).kind).toBe('refused');
    });
  });

  describe('parseWebhook (payloads pushed by the fake)', () => {
    it('parses a customer DM with the sender from the users map; no delivery id', async () => {
      const { dmEventIds, deliveries } = await x.customerWrites({
        senderId: CUSTOMER,
        name: 'Jordan Brinks',
        screenName: 'furiouscamper',
        text: 'Hola, ¿me ayudan? 😊',
      });
      expect(deliveries[0].statuses).toEqual([200]);
      expect(receiver.events).toEqual([
        {
          type: 'message',
          providerMessageId: dmEventIds[0],
          contact: { externalId: CUSTOMER, name: 'Jordan Brinks', username: 'furiouscamper' },
          at: expect.any(Date),
          text: 'Hola, ¿me ayudan? 😊',
        },
      ]);
      expect(adapter.deliveryId(Buffer.from(deliveries[0].body), account())).toBeNull();
    });

    it('returns every DM of a batch, in payload order', async () => {
      const { dmEventIds } = await x.customerWrites([
        { senderId: CUSTOMER, text: 'uno' },
        { senderId: '555', name: 'Otra', text: 'dos' },
        { senderId: CUSTOMER, text: 'tres' },
      ]);
      expect(
        receiver.events.map((event) => (event.type === 'message' ? [event.providerMessageId, event.contact.externalId, event.text] : null)),
      ).toEqual([
        [dmEventIds[0], CUSTOMER, 'uno'],
        [dmEventIds[1], '555', 'dos'],
        [dmEventIds[2], CUSTOMER, 'tres'],
      ]);
    });

    it('parses a photo (media_url_https, t.co link stripped) and a video (highest-bitrate mp4)', async () => {
      const { mediaUrls } = await x.customerWrites([
        { senderId: CUSTOMER, text: 'mira', image: { bytes: PNG, mimeType: 'image/png' } },
        { senderId: CUSTOMER, video: { bytes: Buffer.from('mp4') } },
      ]);
      const [photo, video] = receiver.events;
      expect(photo).toMatchObject({ type: 'message', text: 'mira', media: [{ kind: 'image', ref: mediaUrls[0], mimeType: 'image/png' }] });
      expect(video).toMatchObject({ type: 'message', media: [{ kind: 'video', ref: mediaUrls[1], mimeType: 'video/mp4' }] });
      expect(video.type === 'message' && video.text).toBeFalsy();
    });

    it('turns mark-read events into read receipts, typing into typing, and skips the account’s own', async () => {
      await x.customerTypes(CUSTOMER);
      await x.customerReads(CUSTOMER, '1900000000000000001');
      await x.customerReads(ACCOUNT_USER_ID, '1900000000000000002');
      expect(receiver.events).toEqual([
        { type: 'typing', contactExternalId: CUSTOMER, at: expect.any(Date) },
        { type: 'receipt', providerMessageId: '1900000000000000001', status: 'read', at: expect.any(Date), contactExternalId: CUSTOMER },
      ]);
    });

    it('turns a customer blocking the account into an opt-out and unblocking into an opt-in', async () => {
      await x.customerBlocks(CUSTOMER);
      await x.customerUnblocks(CUSTOMER);
      expect(receiver.events).toEqual([
        { type: 'opt-out', contactExternalId: CUSTOMER, at: expect.any(Date), reason: 'blocked' },
        { type: 'opt-in', contactExternalId: CUSTOMER, at: expect.any(Date), reason: 'unblocked' },
      ]);
    });

    it('skips echoes, the account blocking someone, revokes and unknown activity kinds', async () => {
      const now = String(Date.now());
      const user = (id: string) => ({ id, name: id, screen_name: id });
      await x.deliver({
        for_user_id: ACCOUNT_USER_ID,
        direct_message_events: [
          {
            type: 'message_create',
            id: '11',
            created_timestamp: now,
            message_create: { sender_id: ACCOUNT_USER_ID, target: { recipient_id: CUSTOMER }, message_data: { text: 'echo' } },
          },
          { type: 'reaction_create', id: '12', created_timestamp: now },
        ],
        block_events: [{ type: 'block', created_timestamp: now, source: user(ACCOUNT_USER_ID), target: user(CUSTOMER) }],
        favorite_events: [{ id: '1' }],
        tweet_create_events: [{ id_str: '2' }],
      });
      await x.revokeAccess();
      expect(receiver.verdicts.map((verdict) => verdict.kind)).toEqual(['verified', 'verified']);
      expect(receiver.events).toEqual([]);
    });

    it('refuses a payload for another account', () => {
      const body = Buffer.from(JSON.stringify({ for_user_id: '999', direct_message_events: [] }));
      expect(parseError(() => adapter.parseWebhook(body, account())).message).toMatch(/for_user_id 999 is not this account/);
    });

    it.each([
      ['not JSON', '{"for_user_id":'],
      ['a JSON array', '[]'],
      ['a string', '"hello"'],
      ['direct_message_events not an array', `{"for_user_id":"${ACCOUNT_USER_ID}","direct_message_events":{}}`],
      [
        'a numeric id',
        `{"for_user_id":"${ACCOUNT_USER_ID}","direct_message_events":[{"type":"message_create","id":12,"created_timestamp":"1"}]}`,
      ],
      [
        'no message_create',
        `{"for_user_id":"${ACCOUNT_USER_ID}","direct_message_events":[{"type":"message_create","id":"12","created_timestamp":"1"}]}`,
      ],
      [
        'a bad timestamp',
        `{"for_user_id":"${ACCOUNT_USER_ID}","direct_message_events":[{"type":"message_create","id":"12","created_timestamp":"yesterday"}]}`,
      ],
      ['a null event', `{"for_user_id":"${ACCOUNT_USER_ID}","direct_message_indicate_typing_events":[null]}`],
      ['DMs without for_user_id', `{"direct_message_events":[]}`],
      [
        'a photo without URL',
        `{"for_user_id":"${ACCOUNT_USER_ID}","direct_message_events":[{"type":"message_create","id":"12","created_timestamp":"1","message_create":{"sender_id":"5","target":{"recipient_id":"${ACCOUNT_USER_ID}"},"message_data":{"attachment":{"type":"media","media":{"type":"photo"}}}}}]}`,
      ],
      ['users not an object', `{"for_user_id":"${ACCOUNT_USER_ID}","users":"x"}`],
      [
        'a block without source',
        `{"for_user_id":"${ACCOUNT_USER_ID}","block_events":[{"type":"block","created_timestamp":"1","target":{"id":"1"}}]}`,
      ],
      ['deep nesting', '['.repeat(100_000)],
    ])('throws WebhookPayloadError (never TypeError) for %s', (_name, body) => {
      parseError(() => adapter.parseWebhook(Buffer.from(body), account()));
    });

    it('copes with hostile and huge input: prototype keys, a 5,000-DM batch, a 1 MB text', () => {
      const now = String(Date.now());
      const events = Array.from({ length: 5000 }, (_, i) => ({
        type: 'message_create',
        id: String(1000 + i),
        created_timestamp: now,
        message_create: {
          sender_id: String(7 + (i % 3)),
          target: { recipient_id: ACCOUNT_USER_ID },
          message_data: { text: i === 0 ? 'x'.repeat(1_000_000) : `m${i}` },
        },
      }));
      const body = `{"for_user_id":"${ACCOUNT_USER_ID}","users":{"__proto__":{"name":"polluted"},"constructor":{"name":"c"}},"direct_message_events":${JSON.stringify(events)}}`;
      const parsed = adapter.parseWebhook(Buffer.from(body), account());
      expect(parsed).toHaveLength(5000);
      expect(parsed.map((event) => (event.type === 'message' ? event.providerMessageId : ''))).toEqual(events.map((event) => event.id));
      expect(parsed[0].type === 'message' && parsed[0].contact).toEqual({ externalId: '7' });
      expect(({} as Record<string, unknown>).name).toBeUndefined();
    });
  });

  describe('webhook deliveries like X', () => {
    it('retries while the webhook answers non-2xx and stops at the first 2xx', async () => {
      receiver.answerNext.push(500, 503);
      const { deliveries } = await x.customerWrites({ senderId: CUSTOMER, text: 'reintento' });
      expect(deliveries[0].statuses).toEqual([500, 503, 200]);
      expect(receiver.events).toHaveLength(1);
    });

    it('re-delivers the same signed body on demand (duplicates)', async () => {
      const { deliveries } = await x.customerWrites({ senderId: CUSTOMER, text: 'dup' }, { duplicates: 5 });
      expect(deliveries).toHaveLength(6);
      expect(new Set(deliveries.map((delivery) => delivery.body)).size).toBe(1);
      expect(receiver.events).toHaveLength(6);
      expect(new Set(receiver.events.map((event) => (event.type === 'message' ? event.providerMessageId : ''))).size).toBe(1);
    });
  });

  describe('reply buttons (quick reply options) and picks', () => {
    const menu = [
      { payload: 'bot:person', title: 'Hablar con persona' },
      { payload: 'bot:topic:support', title: 'Soporte técnico de la cuenta y de los pedidos' },
    ];

    it('sends them as a v1.1 quick reply (type options, label ≤ 36, metadata); a pick parses back to its metadata', async () => {
      const result = await adapter.send(account(), { to: CUSTOMER, text: '¿En qué te ayudo?', buttons: menu }, { idempotencyKey: 'qr-1' });
      const dm = x.sent.at(-1)!;
      expect(result.providerMessageId).toBe(dm.dmEventId);
      expect(dm).toMatchObject({ participantId: CUSTOMER, text: '¿En qué te ayudo?', auth: 'oauth1' });
      expect(dm.quickReplyOptions).toEqual([
        { label: 'Hablar con persona', metadata: 'bot:person' },
        { label: 'Soporte técnico de la cuenta y de l…', metadata: 'bot:topic:support' },
      ]);
      expect(x.requests.at(-1)).toMatchObject({ method: 'POST', path: '/1.1/direct_messages/events/new.json', status: 200 });

      await x.customerTaps(CUSTOMER, dm.dmEventId, 'bot:person');
      await eventually(() =>
        expect(receiver.events).toEqual([
          expect.objectContaining({
            type: 'message',
            contact: expect.objectContaining({ externalId: CUSTOMER }),
            text: 'Hablar con persona',
            button: { payload: 'bot:person' },
          }),
        ]),
      );
    });

    it('sends the text alone through v2 when the account has only an OAuth 2.0 user token (v1.1 takes no other)', async () => {
      await adapter.send(
        account({ secrets: { oauth2UserToken: 'fake-oauth2-user-token' } }),
        { to: CUSTOMER, text: 'solo texto', buttons: menu },
        { idempotencyKey: 'qr-2' },
      );
      expect(x.sent.at(-1)).toMatchObject({ text: 'solo texto', auth: 'oauth2' });
      expect(x.sent.at(-1)!.quickReplyOptions).toBeUndefined();
    });

    it('refuses more than 20 options, and the fake refuses what X refuses (a URL label, a 37-character label, OAuth 2.0 on v1.1)', async () => {
      const many = Array.from({ length: 21 }, (_, index) => ({ payload: `p${index}`, title: `Opción ${index}` }));
      expect(
        (await channelError(adapter.send(account(), { to: CUSTOMER, text: 'x', buttons: many }, { idempotencyKey: 'qr-3' }))).details.code,
      ).toBe('too_many_buttons');
      const rejected = async (label: string) =>
        channelError(
          adapter.send(account(), { to: CUSTOMER, text: 'x', buttons: [{ payload: 'p', title: label }] }, { idempotencyKey: 'qr-4' }),
        );
      // The adapter cuts long labels itself, so only the fake's own check is left for a URL.
      expect((await rejected('https://example.com')).message).toMatch(/URLs are not allowed/);
      const raw = await fetch(`${x.url}/1.1/direct_messages/events/new.json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer fake-oauth2-user-token' },
        body: JSON.stringify({
          event: {
            type: 'message_create',
            message_create: {
              target: { recipient_id: CUSTOMER },
              message_data: { text: 'x', quick_reply: { type: 'options', options: [{ label: 'a' }] } },
            },
          },
        }),
      });
      // v1.1 takes OAuth 1.0a user context only.
      expect(raw.status).toBe(403);
      const legacyUrl = `${x.url}/1.1/direct_messages/events/new.json`;
      const long = await fetch(legacyUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: oauth1AuthorizationHeader({ method: 'POST', url: legacyUrl, credentials: secrets }),
        },
        body: JSON.stringify({
          event: {
            type: 'message_create',
            message_create: {
              target: { recipient_id: CUSTOMER },
              message_data: { text: 'x', quick_reply: { type: 'options', options: [{ label: 'x'.repeat(37), metadata: 'p' }] } },
            },
          },
        }),
      });
      expect(long.status).toBe(400);
      expect(JSON.stringify(await long.json())).toMatch(/label: must be 1 to 36 characters/);
    });
  });

  describe('send', () => {
    it('sends a text DM with OAuth 1.0a and answers dm_event_id', async () => {
      const result = await adapter.send(account(), { to: CUSTOMER, text: 'Hola Jordan' }, { idempotencyKey: 'm-1' });
      const dm = x.sent.at(-1)!;
      expect(dm).toMatchObject({ participantId: CUSTOMER, text: 'Hola Jordan', auth: 'oauth1' });
      expect(result.providerMessageId).toBe(dm.dmEventId);
    });

    it('uses the OAuth 2.0 user token when the account has one', async () => {
      await adapter.send(
        account({ secrets: { ...secrets, oauth2UserToken: 'fake-oauth2-user-token' } }),
        { to: CUSTOMER, text: 'bearer' },
        { idempotencyKey: 'm-2' },
      );
      expect(x.sent.at(-1)).toMatchObject({ text: 'bearer', auth: 'oauth2' });
    });

    it('uploads an image (dm_image, one request) and attaches it, with the caption as text', async () => {
      const result = await adapter.send(
        account(),
        { to: CUSTOMER, media: { kind: 'image', mimeType: 'image/png', fileName: 'a.png', bytes: PNG, caption: 'tu factura' } },
        { idempotencyKey: 'm-3' },
      );
      const dm = x.sent.at(-1)!;
      expect(result.providerMessageId).toBe(dm.dmEventId);
      expect(dm.text).toBe('tu factura');
      expect(dm.media).toMatchObject({ category: 'dm_image', mediaType: 'image/png', segments: 1 });
      expect(dm.media!.bytes.equals(PNG)).toBe(true);
    });

    it('uploads a video in segments (initialize, append ×2, finalize, STATUS) as dm_video', async () => {
      const video = Buffer.alloc(4 * 1024 * 1024 + 10, 7);
      await adapter.send(
        account(),
        { to: CUSTOMER, media: { kind: 'video', mimeType: 'video/mp4', fileName: 'v.mp4', bytes: video } },
        { idempotencyKey: 'm-4' },
      );
      const dm = x.sent.at(-1)!;
      expect(dm.media).toMatchObject({ category: 'dm_video', segments: 2, finalized: true });
      expect(dm.media!.bytes.equals(video)).toBe(true);
      const paths = x.requests.slice(-6).map((request) => `${request.method} ${request.path.replace(/\d{10,}/g, ':id')}`);
      expect(paths).toEqual([
        'POST /2/media/upload/initialize',
        'POST /2/media/upload/:id/append',
        'POST /2/media/upload/:id/append',
        'POST /2/media/upload/:id/finalize',
        'GET /2/media/upload?command=STATUS&media_id=:id',
        'POST /2/dm_conversations/with/:id/messages',
      ]);
    });

    it('uploads a GIF through the chunked flow as dm_gif', async () => {
      await adapter.send(
        account(),
        { to: CUSTOMER, media: { kind: 'image', mimeType: 'image/gif', fileName: 'g.gif', bytes: Buffer.from('GIF89a') } },
        { idempotencyKey: 'm-5' },
      );
      expect(x.sent.at(-1)!.media).toMatchObject({ category: 'dm_gif', mediaType: 'image/gif' });
    });

    it('refuses templates, documents and empty messages permanently without calling X', async () => {
      const before = x.requests.length;
      const template = await channelError(
        adapter.send(account(), { to: CUSTOMER, template: { name: 't', language: 'es', bodyParameters: [] } }, { idempotencyKey: 'm' }),
      );
      expect(template.details).toMatchObject({ code: 'templates_unsupported', retryable: false });
      const document = await channelError(
        adapter.send(
          account(),
          { to: CUSTOMER, media: { kind: 'document', mimeType: 'application/pdf', fileName: 'a.pdf', bytes: Buffer.from('%PDF') } },
          { idempotencyKey: 'm' },
        ),
      );
      expect(document.details).toMatchObject({ code: 'unsupported_media', retryable: false });
      expect((await channelError(adapter.send(account(), { to: CUSTOMER, text: '' }, { idempotencyKey: 'm' }))).details.code).toBe(
        'empty_message',
      );
      expect((await channelError(adapter.send(account(), { to: 'jordan', text: 'x' }, { idempotencyKey: 'm' }))).details.code).toBe(
        'invalid_recipient',
      );
      expect(x.requests.length).toBe(before);
    });

    it("answers X's reason, permanently, for a text over 10,000 characters", async () => {
      const error = await channelError(adapter.send(account(), { to: CUSTOMER, text: 'a'.repeat(10_001) }, { idempotencyKey: 'm-6' }));
      expect(error.details).toMatchObject({ retryable: false, status: 400, code: 'x_400' });
      expect(error.message).toMatch(/longer than 10000 characters/);
    });

    it('is permanent (403) when the customer blocked the account', async () => {
      await x.customerBlocks('777');
      const error = await channelError(adapter.send(account(), { to: '777', text: 'hola' }, { idempotencyKey: 'm-7' }));
      expect(error.details).toMatchObject({ retryable: false, status: 403, code: 'forbidden' });
      expect(error.message).toMatch(/not permitted to send Direct Messages/);
    });

    it('is retryable on 429, not before x-rate-limit-reset', async () => {
      x.failNext(1, 'rate-limit', { resetInSeconds: 30 });
      const error = await channelError(adapter.send(account(), { to: CUSTOMER, text: 'limit' }, { idempotencyKey: 'm-8' }));
      expect(error.details).toMatchObject({ retryable: true, status: 429, code: 'rate_limited' });
      expect(error.details.retryAfterMs).toBeGreaterThan(25_000);
      expect(error.details.retryAfterMs).toBeLessThanOrEqual(30_000);
    });

    it('is retryable on 5xx and on network errors', async () => {
      x.failNext(1, 'server-error');
      expect((await channelError(adapter.send(account(), { to: CUSTOMER, text: '5xx' }, { idempotencyKey: 'm-9' }))).details).toMatchObject(
        { retryable: true, status: 503 },
      );
      const closed = await startXFake({ accountUserId: ACCOUNT_USER_ID, ...secrets });
      const unreachable = createTwitterAdapter({ ...DEFAULT_CHANNEL_ENDPOINTS, xApiUrl: closed.url });
      await closed.close();
      expect(
        (await channelError(unreachable.send(account(), { to: CUSTOMER, text: 'net' }, { idempotencyKey: 'm-10' }))).details,
      ).toMatchObject({
        retryable: true,
        code: 'network',
      });
    });

    it('is permanent (401) with a wrong token secret: the fake recomputes and refuses the signature', async () => {
      const error = await channelError(
        adapter.send(
          account({ secrets: { ...secrets, accessTokenSecret: 'wrong' } }),
          { to: CUSTOMER, text: 'x' },
          { idempotencyKey: 'm-11' },
        ),
      );
      expect(error.details).toMatchObject({ retryable: false, status: 401, code: 'unauthorized' });
      expect(x.requests.at(-1)).toMatchObject({ status: 401, authError: 'signature does not match' });
      const missing = await channelError(
        adapter.send(account({ secrets: { consumerSecret: 'only' } }), { to: CUSTOMER, text: 'x' }, { idempotencyKey: 'm' }),
      );
      expect(missing.details.code).toBe('credentials_missing');
      expect(missing.message).toMatch(/consumerKey, accessToken, accessTokenSecret/);
    });
  });

  describe('fetchMedia, markRead, testConnection', () => {
    it('downloads a customer photo with the account’s signed authorization', async () => {
      await x.customerWrites({ senderId: CUSTOMER, image: { bytes: PNG, mimeType: 'image/png' } });
      const message = receiver.events[0];
      if (message.type !== 'message' || !message.media) throw new Error('expected a media message');
      const fetched = await adapter.fetchMedia(account(), message.media[0], 1024);
      expect(fetched.bytes.equals(PNG)).toBe(true);
      expect(fetched.mimeType).toBe('image/png');
      expect(x.requests.at(-1)).toMatchObject({ method: 'GET', status: 200 });
    });

    it('refuses media over maxBytes, from an unknown host, and after the URL expired', async () => {
      const { mediaUrls } = await x.customerWrites({ senderId: CUSTOMER, video: { bytes: Buffer.alloc(2048, 1) } });
      const ref = { kind: 'video' as const, ref: mediaUrls[0], mimeType: 'video/mp4' };
      expect((await channelError(adapter.fetchMedia(account(), ref, 1000))).details).toMatchObject({
        code: 'media_too_large',
        retryable: false,
      });
      expect((await adapter.fetchMedia(account(), ref, 4096)).bytes).toHaveLength(2048);
      expect(
        (await channelError(adapter.fetchMedia(account(), { ...ref, ref: 'https://evil.example/steal.mp4' }, 4096))).details.code,
      ).toBe('untrusted_media_host');
      x.expireMedia();
      expect((await channelError(adapter.fetchMedia(account(), ref, 4096))).details).toMatchObject({ status: 404, retryable: false });
    });

    it('markRead calls nothing (X API v2 has no such endpoint) and capabilities say so', async () => {
      const before = x.requests.length;
      await adapter.markRead(account(), { contactExternalId: CUSTOMER, providerMessageId: '1' });
      expect(x.requests.length).toBe(before);
      expect(adapter.capabilities.markRead).toBe(false);
    });

    it('testConnection answers the account name from GET /2/users/me', async () => {
      await expect(adapter.testConnection(account())).resolves.toEqual({ name: 'Soporte Centralita (@centralita)' });
      expect(x.requests.at(-1)).toMatchObject({ method: 'GET', path: '/2/users/me', status: 200 });
    });

    it('testConnection fails permanently on bad credentials and on credentials of another user', async () => {
      expect(
        (await channelError(adapter.testConnection(account({ secrets: { ...secrets, accessToken: 'other-token' } })))).details,
      ).toMatchObject({
        status: 401,
        retryable: false,
      });
      expect(x.requests.at(-1)?.authError).toBe('unknown access token');
      const mismatch = await channelError(adapter.testConnection(account({ externalAccountId: '1234' })));
      expect(mismatch.details.code).toBe('account_mismatch');
    });

    it('pushes read receipts for sent DMs, shuffled on demand, which parse into read receipts', async () => {
      const first = await adapter.send(account(), { to: CUSTOMER, text: 'r1' }, { idempotencyKey: 'r1' });
      const second = await adapter.send(account(), { to: CUSTOMER, text: 'r2' }, { idempotencyKey: 'r2' });
      receiver.events.length = 0;
      await x.pushReceipts([first.providerMessageId, second.providerMessageId], { shuffle: true });
      await eventually(() => expect(receiver.events).toHaveLength(2));
      expect(new Set(receiver.events.map((event) => event.type === 'receipt' && `${event.status}:${event.providerMessageId}`))).toEqual(
        new Set([`read:${first.providerMessageId}`, `read:${second.providerMessageId}`]),
      );
    });
  });
});
