import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  startMetaMessengerFake,
  metaWebhookJson,
  metaWebhookSignature,
  type MetaMessengerFake,
} from '../../../../test/fakes/meta-messenger';
import { ChannelError, WebhookPayloadError, type ChannelAccount, type InboundEvent, type WebhookRequest } from '../adapter';
import { createChannelRegistry } from '../registry';
import { createInstagramAdapter, createMessengerAdapter, type MetaMessagingAdapter } from './adapter';
import { classifyGraphError } from './graph';

const APP_SECRET = 'app-secret-for-tests';
const PAGE_ID = '1001';
const IG_ID = '17841400000000001';
const IG_PAGE_ID = '1002';
const CUSTOMER = '2001';
const IG_CUSTOMER = '3001';

/** The platform's webhook endpoint as the fake sees it: records each POST, answers the queued statuses (then 200). */
interface Receiver {
  url: string;
  received: Array<{ headers: Record<string, string | undefined>; rawBody: Buffer }>;
  answers: number[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const answers: number[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers as Record<string, string | undefined>, rawBody: Buffer.concat(chunks) });
      response.writeHead(answers.shift() ?? 200);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    received,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(2048, 7)]);

describe('Messenger and Instagram adapters against the Meta fake', () => {
  let meta: MetaMessengerFake;
  let receiver: Receiver;
  let messenger: MetaMessagingAdapter;
  let instagram: MetaMessagingAdapter;
  let facebookAccount: ChannelAccount;
  let instagramAccount: ChannelAccount;

  beforeAll(async () => {
    meta = await startMetaMessengerFake({
      appSecret: APP_SECRET,
      accounts: [
        { kind: 'facebook', accountId: PAGE_ID, pageId: PAGE_ID, accessToken: 'fb-page-token', name: 'Acme Soporte' },
        { kind: 'instagram', accountId: IG_ID, pageId: IG_PAGE_ID, accessToken: 'ig-page-token', name: 'Acme', username: 'acme.soporte' },
      ],
      retryDelayMs: 5,
    });
    receiver = await startReceiver();
    meta.setWebhookUrl(PAGE_ID, receiver.url);
    meta.setWebhookUrl(IG_ID, receiver.url);
    const endpoints = {
      metaGraphUrl: meta.url,
      metaGraphVersion: meta.graphVersion,
      telegramApiUrl: 'http://unused',
      xApiUrl: 'http://unused',
    };
    messenger = createMessengerAdapter(endpoints);
    instagram = createInstagramAdapter(endpoints);
    facebookAccount = {
      id: 'acc-fb',
      kind: 'facebook',
      externalAccountId: PAGE_ID,
      settings: {},
      secrets: { accessToken: 'fb-page-token', appSecret: APP_SECRET },
      verifyToken: 'verify-token-fb',
    };
    instagramAccount = {
      id: 'acc-ig',
      kind: 'instagram',
      externalAccountId: IG_ID,
      settings: { pageId: IG_PAGE_ID },
      secrets: { accessToken: 'ig-page-token', appSecret: APP_SECRET },
      verifyToken: 'verify-token-ig',
    };
    meta.customer(PAGE_ID, { id: CUSTOMER, firstName: 'María', lastName: 'Núñez' });
    meta.customer(IG_ID, { id: IG_CUSTOMER, name: 'Ana Pérez', username: 'ana.p' });
  });

  afterAll(async () => {
    await meta.close();
    await receiver.close();
  });

  /** The customer writes through the fake; answers the webhook request exactly as the platform received it. */
  async function customerWrites(accountId: string, messages: Parameters<MetaMessengerFake['customerWrites']>[1]) {
    const before = receiver.received.length;
    const { mids } = await meta.customerWrites(accountId, messages);
    const last = receiver.received[receiver.received.length - 1];
    expect(receiver.received.length).toBe(before + 1);
    const request: WebhookRequest = { method: 'POST', query: {}, headers: last.headers, rawBody: last.rawBody };
    return { mids, request };
  }

  function lastReceived(): WebhookRequest {
    const last = receiver.received[receiver.received.length - 1];
    return { method: 'POST', query: {}, headers: last.headers, rawBody: last.rawBody };
  }

  async function sendError(promise: Promise<unknown>): Promise<ChannelError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ChannelError);
    return error as ChannelError;
  }

  describe('registry and capabilities', () => {
    it('registers facebook and instagram with the documented limits', () => {
      const registry = createChannelRegistry({
        metaGraphUrl: meta.url,
        metaGraphVersion: 'v23.0',
        telegramApiUrl: 'http://127.0.0.1:1',
        xApiUrl: 'http://127.0.0.1:1',
      });
      expect(registry.get('facebook')?.kind).toBe('facebook');
      expect(registry.get('instagram')?.kind).toBe('instagram');
      expect(messenger.capabilities).toMatchObject({ textLimit: 2000, replyWindowHours: 24, humanAgentTagHours: 168, templates: false });
      expect(instagram.capabilities).toMatchObject({ textLimit: 1000, replyWindowHours: 24, humanAgentTagHours: 168, templates: false });
      expect(messenger.capabilities.attachments.image?.maxBytes).toBe(8 * 1024 * 1024);
      expect(messenger.capabilities.attachments.document?.maxBytes).toBe(25 * 1024 * 1024);
      expect(instagram.capabilities.receipts).toEqual({ delivered: false, read: true });
      expect(messenger.credentials).toEqual({ secrets: ['accessToken', 'appSecret'], settings: [] });
      expect(instagram.credentials).toEqual({ secrets: ['accessToken', 'appSecret'], settings: ['pageId'] });
    });
  });

  describe('reply buttons (quick replies) and taps', () => {
    const menu = [
      { payload: 'bot:person', title: 'Hablar con persona' },
      { payload: 'bot:topic:sales', title: 'Ventas' },
      { payload: 'bot:topic:support', title: 'Problemas técnicos con la cuenta' },
    ];

    it.each([
      ['Messenger', () => ({ adapter: messenger, account: facebookAccount, accountId: PAGE_ID, customer: CUSTOMER })],
      ['Instagram', () => ({ adapter: instagram, account: instagramAccount, accountId: IG_ID, customer: IG_CUSTOMER })],
    ])('%s: sends them as quick_replies (text, title ≤ 20, payload); a tap parses back to its payload', async (_name, which) => {
      const { adapter, account, accountId, customer } = which();
      await customerWrites(accountId, [{ from: customer, text: 'hola' }]);
      const { providerMessageId } = await adapter.send(
        account,
        { to: customer, text: '¿En qué te ayudo?', buttons: menu },
        { idempotencyKey: 'qr-1' },
      );
      const sent = meta.sent.find((one) => one.messageId === providerMessageId)!;
      expect(sent.quickReplies).toEqual([
        { title: 'Hablar con persona', payload: 'bot:person' },
        { title: 'Ventas', payload: 'bot:topic:sales' },
        { title: 'Problemas técnicos…', payload: 'bot:topic:support' },
      ]);
      const before = receiver.received.length;
      await meta.customerTaps(accountId, providerMessageId, 'bot:topic:sales');
      expect(receiver.received.length).toBe(before + 1);
      expect(adapter.parseWebhook(lastReceived().rawBody, account)).toEqual([
        expect.objectContaining({
          type: 'message',
          contact: { externalId: customer },
          text: 'Ventas',
          button: { payload: 'bot:topic:sales' },
        }),
      ]);
    });

    it('refuses more than 13, and the fake refuses what the Send API refuses (a 21-character title, no payload)', async () => {
      await customerWrites(PAGE_ID, [{ from: CUSTOMER, text: 'hola' }]);
      const fourteen = Array.from({ length: 14 }, (_, index) => ({ payload: `p${index}`, title: `Opción ${index}` }));
      expect(
        (await sendError(messenger.send(facebookAccount, { to: CUSTOMER, text: 'x', buttons: fourteen }, { idempotencyKey: 'qr-2' })))
          .details.code,
      ).toBe('too_many_buttons');
      const post = (quickReplies: unknown) =>
        fetch(`${meta.url}/${meta.graphVersion}/me/messages?access_token=fb-page-token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            recipient: { id: CUSTOMER },
            messaging_type: 'RESPONSE',
            message: { text: 'x', quick_replies: quickReplies },
          }),
        });
      const long = await post([{ content_type: 'text', title: 'x'.repeat(21), payload: 'p' }]);
      expect(long.status).toBe(400);
      expect(JSON.stringify(await long.json())).toMatch(/at most 20 characters/);
      expect((await post([{ content_type: 'text', title: 'Sin payload' }])).status).toBe(400);
    });
  });

  describe('verifyWebhook', () => {
    it('answers Meta’s subscription handshake only with the account’s verify token', () => {
      const handshake = (query: Record<string, string>): WebhookRequest => ({
        method: 'GET',
        query,
        headers: {},
        rawBody: Buffer.alloc(0),
      });
      expect(
        messenger.verifyWebhook(
          handshake({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-token-fb', 'hub.challenge': '1158201444' }),
          facebookAccount,
        ),
      ).toEqual({
        kind: 'challenge',
        body: '1158201444',
        contentType: 'text/plain',
      });
      expect(
        messenger.verifyWebhook(
          handshake({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-token-ig', 'hub.challenge': '1' }),
          facebookAccount,
        ).kind,
      ).toBe('refused');
      expect(
        messenger.verifyWebhook(
          handshake({ 'hub.mode': 'unsubscribe', 'hub.verify_token': 'verify-token-fb', 'hub.challenge': '1' }),
          facebookAccount,
        ).kind,
      ).toBe('refused');
      expect(
        messenger.verifyWebhook(handshake({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-token-fb' }), facebookAccount).kind,
      ).toBe('refused');
      expect(messenger.verifyWebhook(handshake({ 'hub.mode': 'subscribe', 'hub.challenge': '1' }), facebookAccount).kind).toBe('refused');
    });

    it('verifies the fake’s signature over the raw bytes, non-ASCII escaped as Meta sends it', async () => {
      const { request } = await customerWrites(PAGE_ID, [{ from: CUSTOMER, text: 'Hola, ¿me ayudan? ñandú 😀' }]);
      expect(request.rawBody.toString('utf8')).toContain('\\u00bfme ayudan? \\u00f1and\\u00fa \\ud83d\\ude00');
      expect(request.rawBody.toString('utf8')).not.toMatch(/[^\x00-\x7f]/);
      expect(messenger.verifyWebhook(request, facebookAccount)).toEqual({ kind: 'verified' });
      // The same event re-serialised with raw UTF-8 is different bytes: its signature does not match them.
      const reserialised = Buffer.from(JSON.stringify(JSON.parse(request.rawBody.toString('utf8'))));
      expect(messenger.verifyWebhook({ ...request, rawBody: reserialised }, facebookAccount).kind).toBe('refused');
    });

    it('refuses forged, missing, malformed and wrong-secret signatures without throwing', async () => {
      const { request } = await customerWrites(PAGE_ID, [{ from: CUSTOMER, text: 'hola' }]);
      const tampered = Buffer.from(request.rawBody.toString('utf8').replace('hola', 'HOLA'));
      expect(messenger.verifyWebhook({ ...request, rawBody: tampered }, facebookAccount).kind).toBe('refused');
      expect(
        messenger.verifyWebhook({ ...request, headers: { ...request.headers, 'x-hub-signature-256': undefined } }, facebookAccount),
      ).toEqual({
        kind: 'refused',
        reason: 'missing X-Hub-Signature-256',
      });
      for (const header of [
        'sha256=',
        'sha1=abc',
        'garbage',
        metaWebhookSignature('other-secret', request.rawBody.toString('utf8')),
        'sha256=' + 'a'.repeat(10_000),
      ]) {
        expect(
          messenger.verifyWebhook({ ...request, headers: { ...request.headers, 'x-hub-signature-256': header } }, facebookAccount).kind,
        ).toBe('refused');
      }
      expect(
        messenger.verifyWebhook(request, { ...facebookAccount, secrets: { ...facebookAccount.secrets, appSecret: 'rotated' } }).kind,
      ).toBe('refused');
      expect(messenger.verifyWebhook(request, { ...facebookAccount, secrets: { accessToken: 'x' } })).toEqual({
        kind: 'refused',
        reason: 'the account has no app secret',
      });
      expect(messenger.verifyWebhook({ ...request, headers: null as unknown as Record<string, string> }, facebookAccount).kind).toBe(
        'refused',
      );
    });
  });

  describe('parseWebhook', () => {
    it('reads a text message with its mid, sender PSID and time; no name (profile() gives it)', async () => {
      const timestamp = Date.UTC(2025, 4, 1, 10, 0, 0);
      const { mids, request } = await customerWrites(PAGE_ID, [{ from: CUSTOMER, text: 'Necesito ayuda con mi pedido ñ', timestamp }]);
      expect(messenger.parseWebhook(request.rawBody, facebookAccount)).toEqual<InboundEvent[]>([
        {
          type: 'message',
          providerMessageId: mids[0],
          contact: { externalId: CUSTOMER },
          at: new Date(timestamp),
          text: 'Necesito ayuda con mi pedido ñ',
        },
      ]);
      expect(messenger.deliveryId(request.rawBody, facebookAccount)).toBeNull();
    });

    it('returns every message of a batched delivery, in order, media included', async () => {
      const { mids, request } = await customerWrites(PAGE_ID, [
        { from: CUSTOMER, text: 'primero' },
        { from: '2002', media: [{ type: 'image', bytes: PNG, mimeType: 'image/png' }] },
        {
          from: CUSTOMER,
          text: 'mira esto',
          media: [{ type: 'file', bytes: Buffer.from('%PDF-1.4 factura'), mimeType: 'application/pdf', fileName: 'factura.pdf' }],
        },
      ]);
      const events = messenger.parseWebhook(request.rawBody, facebookAccount);
      expect(
        events.map((event) => (event.type === 'message' ? [event.providerMessageId, event.contact.externalId, event.text] : null)),
      ).toEqual([
        [mids[0], CUSTOMER, 'primero'],
        [mids[1], '2002', undefined],
        [mids[2], CUSTOMER, 'mira esto'],
      ]);
      const image = events[1].type === 'message' ? events[1].media : undefined;
      expect(image).toEqual([{ kind: 'image', ref: expect.stringMatching(new RegExp(`^${meta.url}/cdn/`)) }]);
      const document = events[2].type === 'message' ? events[2].media?.[0] : undefined;
      expect(document).toMatchObject({ kind: 'document', ref: expect.stringContaining('/factura.pdf?') });
    });

    it('reads Instagram messages (object instagram, IGSID)', async () => {
      const { mids, request } = await customerWrites(IG_ID, [{ from: IG_CUSTOMER, text: 'hola desde IG' }]);
      expect(instagram.verifyWebhook(request, instagramAccount)).toEqual({ kind: 'verified' });
      expect(instagram.parseWebhook(request.rawBody, instagramAccount)).toEqual([
        expect.objectContaining({
          type: 'message',
          providerMessageId: mids[0],
          contact: { externalId: IG_CUSTOMER },
          text: 'hola desde IG',
        }),
      ]);
      // A page webhook is not an Instagram one (and the reverse): the object is checked.
      expect(() => messenger.parseWebhook(request.rawBody, facebookAccount)).toThrow(WebhookPayloadError);
    });

    it('turns deliveries into a receipt per mid, reads into watermark receipts (Messenger) or per-mid receipts (Instagram)', () => {
      const body = (object: string, messaging: unknown[]) =>
        Buffer.from(metaWebhookJson({ object, entry: [{ id: object === 'page' ? PAGE_ID : IG_ID, time: 1, messaging }] }));
      const fb = messenger.parseWebhook(
        body('page', [
          { sender: { id: CUSTOMER }, recipient: { id: PAGE_ID }, delivery: { mids: ['m_1', 'm_2'], watermark: 1700000000000 } },
          { sender: { id: CUSTOMER }, recipient: { id: PAGE_ID }, delivery: { watermark: 1700000000500 } },
          { sender: { id: CUSTOMER }, recipient: { id: PAGE_ID }, timestamp: 1700000001000, read: { watermark: 1700000000900 } },
        ]),
        facebookAccount,
      );
      expect(fb).toEqual([
        { type: 'receipt', providerMessageId: 'm_1', status: 'delivered', at: new Date(1700000000000), contactExternalId: CUSTOMER },
        { type: 'receipt', providerMessageId: 'm_2', status: 'delivered', at: new Date(1700000000000), contactExternalId: CUSTOMER },
        {
          type: 'receipt',
          providerMessageId: 'watermark:1700000000500',
          status: 'delivered',
          at: new Date(1700000000500),
          contactExternalId: CUSTOMER,
        },
        {
          type: 'receipt',
          providerMessageId: 'watermark:1700000000900',
          status: 'read',
          at: new Date(1700000001000),
          contactExternalId: CUSTOMER,
        },
      ]);
      const ig = instagram.parseWebhook(
        body('instagram', [{ sender: { id: IG_CUSTOMER }, recipient: { id: IG_ID }, timestamp: 1700000002000, read: { mid: 'aWdf-1' } }]),
        instagramAccount,
      );
      expect(ig).toEqual([
        { type: 'receipt', providerMessageId: 'aWdf-1', status: 'read', at: new Date(1700000002000), contactExternalId: IG_CUSTOMER },
      ]);
    });

    it('reads marketing-message opt-outs and opt-ins', () => {
      const optin = (status: string) => ({
        sender: { id: CUSTOMER },
        recipient: { id: PAGE_ID },
        timestamp: 1700000000000,
        optin: { type: 'notification_messages', notification_messages_status: status },
      });
      const events = messenger.parseWebhook(
        Buffer.from(
          metaWebhookJson({
            object: 'page',
            entry: [{ id: PAGE_ID, time: 1, messaging: [optin('STOP_NOTIFICATIONS'), optin('RESUME_NOTIFICATIONS')] }],
          }),
        ),
        facebookAccount,
      );
      expect(events).toEqual([
        { type: 'opt-out', contactExternalId: CUSTOMER, at: new Date(1700000000000), reason: 'marketing' },
        { type: 'opt-in', contactExternalId: CUSTOMER, at: new Date(1700000000000), reason: 'marketing' },
      ]);
    });

    it('skips echoes of our own sends, unknown kinds, empty messages and other accounts’ entries', () => {
      const us = { sender: { id: PAGE_ID }, recipient: { id: CUSTOMER }, timestamp: 1 };
      const them = { sender: { id: CUSTOMER }, recipient: { id: PAGE_ID }, timestamp: 2 };
      const body = {
        object: 'page',
        entry: [
          {
            id: PAGE_ID,
            time: 1,
            messaging: [
              { ...us, message: { mid: 'm_echo', text: 'our reply', is_echo: true, app_id: 1 } },
              { ...them, reaction: { mid: 'm_x', action: 'react', emoji: '❤' } },
              { ...them, message: { mid: 'm_loc', attachments: [{ type: 'location', payload: { coordinates: { lat: 1, long: 2 } } }] } },
              { ...them, message: { mid: 'm_deleted', is_deleted: true } },
              { ...them, referral: { ref: 'ad' } },
              { ...them, message: { mid: 'm_kept', text: 'kept' } },
            ],
          },
          {
            id: '9999',
            time: 1,
            messaging: [
              { sender: { id: '5' }, recipient: { id: '9999' }, timestamp: 3, message: { mid: 'm_other_page', text: 'not ours' } },
            ],
          },
          { id: PAGE_ID, time: 1, changes: [{ field: 'feed', value: {} }] },
        ],
      };
      expect(messenger.parseWebhook(Buffer.from(metaWebhookJson(body)), facebookAccount)).toEqual([
        { type: 'message', providerMessageId: 'm_kept', contact: { externalId: CUSTOMER }, at: new Date(2), text: 'kept' },
      ]);
    });

    it('throws WebhookPayloadError (never TypeError) on malformed bodies', () => {
      const item = { sender: { id: CUSTOMER }, recipient: { id: PAGE_ID }, timestamp: 1, message: { mid: 'm', text: 'x' } };
      const bad: unknown[] = [
        'not json{',
        '[]',
        'null',
        { object: 'page' },
        { object: 'page', entry: {} },
        { object: 'page', entry: [null] },
        { object: 'page', entry: [{ messaging: [] }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: {} }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [5] }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [{ ...item, sender: null }] }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [{ ...item, sender: { id: 42 } }] }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [{ ...item, timestamp: 'yesterday' }] }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [{ ...item, message: { mid: 'm', text: { html: 1 } } }] }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [{ ...item, message: { mid: 7 } }] }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [{ ...item, message: { mid: 'm', attachments: 'x' } }] }] },
        {
          object: 'page',
          entry: [
            {
              id: PAGE_ID,
              messaging: [{ ...item, message: { mid: 'm', attachments: [{ type: 'image', payload: { url: 'javascript:alert(1)' } }] } }],
            },
          ],
        },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [{ ...item, message: undefined, delivery: { mids: [1], watermark: 1 } }] }] },
        { object: 'page', entry: [{ id: PAGE_ID, messaging: [{ ...item, message: undefined, read: {} }] }] },
      ];
      for (const body of bad) {
        const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
        expect(() => messenger.parseWebhook(raw, facebookAccount)).toThrow(WebhookPayloadError);
      }
    });

    it('parses a hostile, huge batch fully and quickly', () => {
      const messaging = Array.from({ length: 5000 }, (_, index) => ({
        sender: { id: String(10_000 + index) },
        recipient: { id: PAGE_ID },
        timestamp: 1700000000000 + index,
        message: { mid: `m_${index}`, text: '\u202e'.repeat(3) + 'x'.repeat(1000) },
      }));
      const raw = Buffer.from(metaWebhookJson({ object: 'page', entry: [{ id: PAGE_ID, time: 1, messaging }] }));
      // CPU time, not wall-clock: a loaded machine delays the test without making the parse slower.
      const started = process.cpuUsage();
      const events = messenger.parseWebhook(raw, facebookAccount);
      const used = process.cpuUsage(started);
      const elapsed = (used.user + used.system) / 1000;
      expect(events).toHaveLength(5000);
      expect(events[4999]).toMatchObject({
        providerMessageId: 'm_4999',
        contact: { externalId: '14999' },
        text: '\u202e'.repeat(3) + 'x'.repeat(1000),
      });
      // Linear work on a 5 MB body: well under a second even on a loaded machine (a quadratic parse takes minutes).
      expect(elapsed).toBeLessThan(1500);
    });
  });

  describe('send', () => {
    it('sends text to /me/messages as a RESPONSE with the Page token', async () => {
      await meta.customerWrites(PAGE_ID, [{ from: CUSTOMER, text: 'hola' }]);
      const { providerMessageId } = await messenger.send(
        facebookAccount,
        { to: CUSTOMER, text: 'Buenos días, ¿en qué le ayudo?' },
        { idempotencyKey: 'msg-1' },
      );
      expect(meta.sent.at(-1)).toMatchObject({
        accountId: PAGE_ID,
        node: 'me',
        recipientId: CUSTOMER,
        messagingType: 'RESPONSE',
        text: 'Buenos días, ¿en qué le ayudo?',
        messageId: providerMessageId,
      });
      expect(meta.sent.at(-1)?.tag).toBeUndefined();
    });

    it('sends Instagram text through the linked Page’s /{page-id}/messages', async () => {
      await meta.customerWrites(IG_ID, [{ from: IG_CUSTOMER, text: 'hola' }]);
      const { providerMessageId } = await instagram.send(
        instagramAccount,
        { to: IG_CUSTOMER, text: 'Hola Ana' },
        { idempotencyKey: 'msg-ig-1' },
      );
      expect(meta.sent.at(-1)).toMatchObject({
        accountId: IG_ID,
        node: IG_PAGE_ID,
        recipientId: IG_CUSTOMER,
        messagingType: 'RESPONSE',
        text: 'Hola Ana',
        messageId: providerMessageId,
      });
      await expect(
        instagram.send({ ...instagramAccount, settings: {} }, { to: IG_CUSTOMER, text: 'x' }, { idempotencyKey: 'k' }),
      ).rejects.toMatchObject({
        details: { code: 'not_configured', retryable: false },
      });
    });

    it('refuses text over the limit before calling Meta, counting characters not bytes', async () => {
      const calls = meta.requests.length;
      const error = await sendError(instagram.send(instagramAccount, { to: IG_CUSTOMER, text: 'x'.repeat(1001) }, { idempotencyKey: 'k' }));
      expect(error.details).toMatchObject({ code: 'text_too_long', retryable: false });
      expect(meta.requests.length).toBe(calls);
      await instagram.send(instagramAccount, { to: IG_CUSTOMER, text: 'ñ'.repeat(999) + '😀' }, { idempotencyKey: 'k' });
      expect(meta.sent.at(-1)?.text).toHaveLength(1001); // 999 + a surrogate pair: 1000 characters
      await expect(
        messenger.send(
          facebookAccount,
          { to: CUSTOMER, template: { name: 't', language: 'es', bodyParameters: [] } },
          { idempotencyKey: 'k' },
        ),
      ).rejects.toMatchObject({
        details: { code: 'templates_unsupported', retryable: false },
      });
    });

    it('tags HUMAN_AGENT outside 24 h, and Meta refuses free text there (permanent, clear reason)', async () => {
      meta.setLastCustomerMessageAt(PAGE_ID, '2010', Date.now() - 30 * 3600_000);
      const error = await sendError(messenger.send(facebookAccount, { to: '2010', text: 'hola' }, { idempotencyKey: 'k' }));
      expect(error.details).toMatchObject({ code: 'outside_window', retryable: false, status: 400 });
      expect(error.message).toMatch(/reply window has closed.*outside of allowed window/);
      await messenger.send(facebookAccount, { to: '2010', text: 'Le escribe un agente', humanAgentTag: true }, { idempotencyKey: 'k' });
      expect(meta.sent.at(-1)).toMatchObject({ recipientId: '2010', messagingType: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' });
      meta.setLastCustomerMessageAt(PAGE_ID, '2011', Date.now() - 8 * 24 * 3600_000);
      expect(
        (await sendError(messenger.send(facebookAccount, { to: '2011', text: 'x', humanAgentTag: true }, { idempotencyKey: 'k' }))).details
          .code,
      ).toBe('outside_window');
    });

    it('uploads media (multipart, reusable) and sends it by attachment_id, caption first', async () => {
      const sentBefore = meta.sent.length;
      const { providerMessageId } = await messenger.send(
        facebookAccount,
        { to: CUSTOMER, media: { kind: 'image', mimeType: 'image/png', fileName: 'recibo.png', bytes: PNG, caption: 'Su recibo' } },
        { idempotencyKey: 'k' },
      );
      const upload = meta.uploads.at(-1)!;
      expect(upload).toMatchObject({ accountId: PAGE_ID, type: 'image', isReusable: true, fileName: 'recibo.png', mimeType: 'image/png' });
      expect(upload.bytes.equals(PNG)).toBe(true);
      expect(meta.sent.slice(sentBefore)).toEqual([
        expect.objectContaining({ text: 'Su recibo' }),
        expect.objectContaining({ attachment: { type: 'image', attachmentId: upload.attachmentId }, messageId: providerMessageId }),
      ]);

      await instagram.send(
        instagramAccount,
        { to: IG_CUSTOMER, media: { kind: 'document', mimeType: 'application/pdf', fileName: 'f.pdf', bytes: Buffer.from('%PDF-1.4') } },
        { idempotencyKey: 'k' },
      );
      expect(meta.uploads.at(-1)).toMatchObject({ accountId: IG_ID, type: 'file', platform: 'instagram' });
      expect(meta.sent.at(-1)).toMatchObject({ node: IG_PAGE_ID, attachment: { type: 'file' } });
    });

    it('refuses media over the limit or of a format the channel does not take, before uploading', async () => {
      const uploads = meta.uploads.length;
      const big = await sendError(
        messenger.send(
          facebookAccount,
          { to: CUSTOMER, media: { kind: 'image', mimeType: 'image/png', fileName: 'big.png', bytes: Buffer.alloc(8 * 1024 * 1024 + 1) } },
          { idempotencyKey: 'k' },
        ),
      );
      expect(big.details).toMatchObject({ code: 'media_too_large', retryable: false });
      const format = await sendError(
        instagram.send(
          instagramAccount,
          { to: IG_CUSTOMER, media: { kind: 'document', mimeType: 'application/zip', fileName: 'a.zip', bytes: Buffer.from('PK') } },
          { idempotencyKey: 'k' },
        ),
      );
      expect(format.details).toMatchObject({ code: 'media_unsupported', retryable: false });
      expect(meta.uploads.length).toBe(uploads);
    });

    it('classifies Meta’s errors: rate limits and 5xx retryable, token and unavailable person permanent', async () => {
      meta.failNext(1, 'rate-limit', { regainMinutes: 3 });
      const limited = await sendError(messenger.send(facebookAccount, { to: CUSTOMER, text: 'x' }, { idempotencyKey: 'k' }));
      expect(limited.details).toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 180_000, status: 400 });

      meta.failNext(1, 'server-error');
      const server = await sendError(messenger.send(facebookAccount, { to: CUSTOMER, text: 'x' }, { idempotencyKey: 'k' }));
      expect(server.details).toMatchObject({ code: 'transient', retryable: true, status: 500 });

      meta.failNext(1, 'invalid-token');
      const token = await sendError(messenger.send(facebookAccount, { to: CUSTOMER, text: 'x' }, { idempotencyKey: 'k' }));
      expect(token.details).toMatchObject({ code: 'invalid_token', retryable: false });
      expect(token.message).toContain('Session has expired');

      meta.failNext(1, 'unavailable');
      const unavailable = await sendError(instagram.send(instagramAccount, { to: IG_CUSTOMER, text: 'x' }, { idempotencyKey: 'k' }));
      expect(unavailable.details).toMatchObject({ code: 'recipient_unavailable', retryable: false });

      const unknown = await sendError(messenger.send(facebookAccount, { to: '999999', text: 'x' }, { idempotencyKey: 'k' }));
      expect(unknown.details).toMatchObject({ code: 'invalid_recipient', retryable: false });

      const wrongToken = await sendError(
        messenger.send({ ...facebookAccount, secrets: { accessToken: 'stolen' } }, { to: CUSTOMER, text: 'x' }, { idempotencyKey: 'k' }),
      );
      expect(wrongToken.details).toMatchObject({ code: 'invalid_token', retryable: false });
    });

    it('classifies bodies Meta did not write, and the app-level limits (4, 613) with Retry-After', () => {
      expect(classifyGraphError(502, '<html>bad gateway</html>', new Headers()).details).toMatchObject({
        code: 'http_502',
        retryable: true,
      });
      expect(classifyGraphError(429, null, new Headers({ 'retry-after': '7' })).details).toMatchObject({
        retryable: true,
        retryAfterMs: 7000,
      });
      expect(
        classifyGraphError(403, { error: { code: 4, message: '(#4) Application request limit reached' } }, new Headers()).details,
      ).toMatchObject({ code: 'rate_limited', retryable: true });
      expect(
        classifyGraphError(
          400,
          { error: { code: 613, message: 'Calls to this api have exceeded the rate limit.' } },
          new Headers({ 'retry-after': '30' }),
        ).details,
      ).toMatchObject({
        code: 'rate_limited',
        retryAfterMs: 30_000,
      });
      expect(classifyGraphError(400, { error: { code: 100, message: 'Invalid parameter' } }, new Headers()).details).toMatchObject({
        code: 'graph_100',
        retryable: false,
      });
      expect(classifyGraphError(400, { error: { code: 200, message: 'no permission' } }, new Headers()).details).toMatchObject({
        code: 'permission_denied',
        retryable: false,
      });
    });

    it('reports a network failure as retryable', async () => {
      const offline = createMessengerAdapter({
        metaGraphUrl: 'http://127.0.0.1:1',
        metaGraphVersion: 'v23.0',
        telegramApiUrl: 'x',
        xApiUrl: 'x',
      });
      const error = await sendError(offline.send(facebookAccount, { to: CUSTOMER, text: 'x' }, { idempotencyKey: 'k' }));
      expect(error.details).toMatchObject({ code: 'network', retryable: true });
    });
  });

  describe('markRead', () => {
    it('sends sender_action mark_seen to the customer', async () => {
      await messenger.markRead(facebookAccount, { contactExternalId: CUSTOMER, providerMessageId: 'm_any' });
      expect(meta.sent.at(-1)).toMatchObject({ recipientId: CUSTOMER, senderAction: 'mark_seen', node: 'me' });
      expect(meta.sent.at(-1)?.messageId).toBeUndefined();
      await instagram.markRead(instagramAccount, { contactExternalId: IG_CUSTOMER, providerMessageId: 'x' });
      expect(meta.sent.at(-1)).toMatchObject({ recipientId: IG_CUSTOMER, senderAction: 'mark_seen', node: IG_PAGE_ID });
    });
  });

  describe('fetchMedia', () => {
    it('downloads the customer’s media, refuses more than maxBytes, and fails for good once the URL expired', async () => {
      const { request } = await customerWrites(PAGE_ID, [
        { from: CUSTOMER, media: [{ type: 'image', bytes: PNG, mimeType: 'image/png' }] },
        {
          from: CUSTOMER,
          media: [{ type: 'file', bytes: Buffer.from('%PDF-1.4 contrato'), mimeType: 'application/pdf', fileName: 'contrato final.pdf' }],
        },
      ]);
      const [image, file] = messenger
        .parseWebhook(request.rawBody, facebookAccount)
        .flatMap((event) => (event.type === 'message' ? (event.media ?? []) : []));
      const fetched = await messenger.fetchMedia(facebookAccount, image, 1024 * 1024);
      expect(fetched.bytes.equals(PNG)).toBe(true);
      expect(fetched.mimeType).toBe('image/png');
      expect(await messenger.fetchMedia(facebookAccount, file, 1024 * 1024)).toMatchObject({
        mimeType: 'application/pdf',
        fileName: 'contrato final.pdf',
      });

      const tooLarge = await sendError(messenger.fetchMedia(facebookAccount, image, 100));
      expect(tooLarge.details).toMatchObject({ code: 'media_too_large', retryable: false });

      meta.expireMedia();
      const expired = await sendError(messenger.fetchMedia(facebookAccount, image, 1024 * 1024));
      expect(expired.details).toMatchObject({ code: 'http_403', retryable: false });

      await expect(messenger.fetchMedia(facebookAccount, { kind: 'image', ref: 'file:///etc/passwd' }, 10)).rejects.toMatchObject({
        details: { code: 'invalid_media' },
      });
    });
  });

  describe('testConnection and profile', () => {
    it('answers the Page name, the Instagram @username, and refuses a bad or mismatched token', async () => {
      expect(await messenger.testConnection(facebookAccount)).toEqual({ name: 'Acme Soporte' });
      expect(await instagram.testConnection(instagramAccount)).toEqual({ name: '@acme.soporte' });
      await expect(messenger.testConnection({ ...facebookAccount, secrets: { accessToken: 'wrong' } })).rejects.toMatchObject({
        details: { code: 'invalid_token', retryable: false },
      });
      await expect(messenger.testConnection({ ...facebookAccount, externalAccountId: '5555' })).rejects.toMatchObject({
        details: { code: 'account_mismatch' },
      });
      await expect(messenger.testConnection({ ...facebookAccount, secrets: {} })).rejects.toMatchObject({
        details: { code: 'not_configured' },
      });
    });

    it('fetches a customer’s name on demand (Messenger first/last name, Instagram name and username)', async () => {
      expect(await messenger.profile(facebookAccount, CUSTOMER)).toEqual({ name: 'María Núñez' });
      expect(await instagram.profile(instagramAccount, IG_CUSTOMER)).toEqual({ name: 'Ana Pérez', username: 'ana.p' });
      await expect(messenger.profile(facebookAccount, '../me')).rejects.toMatchObject({ details: { code: 'invalid_recipient' } });
    });
  });

  describe('the fake as Meta', () => {
    it('retries a delivery on non-2xx, duplicates on demand, and pushes receipts out of order', async () => {
      receiver.answers.push(500, 503);
      const before = meta.webhooks.length;
      const { statuses } = await meta.customerWrites(PAGE_ID, [{ from: CUSTOMER, text: 'retry me' }]);
      expect(statuses).toEqual([200]);
      expect(meta.webhooks.slice(before).map((attempt) => [attempt.attempt, attempt.status])).toEqual([
        [1, 500],
        [2, 503],
        [3, 200],
      ]);
      const bodies = new Set(meta.webhooks.slice(before).map((attempt) => attempt.body));
      expect(bodies.size).toBe(1); // a retry is the same bytes

      const received = receiver.received.length;
      await meta.customerWrites(PAGE_ID, [{ from: CUSTOMER, text: 'dup' }], { times: 5 });
      const duplicates = receiver.received.slice(received);
      expect(duplicates).toHaveLength(5);
      expect(new Set(duplicates.map((request) => request.rawBody.toString())).size).toBe(1);

      const { providerMessageId } = await messenger.send(facebookAccount, { to: CUSTOMER, text: 'receipts' }, { idempotencyKey: 'k' });
      const start = receiver.received.length;
      await meta.pushReceipts(
        PAGE_ID,
        [
          { messageId: providerMessageId, status: 'delivered' },
          { messageId: providerMessageId, status: 'read' },
        ],
        { shuffle: true },
      );
      const receipts = receiver.received.slice(start).flatMap((request) => {
        expect(
          messenger.verifyWebhook({ method: 'POST', query: {}, headers: request.headers, rawBody: request.rawBody }, facebookAccount).kind,
        ).toBe('verified');
        return messenger.parseWebhook(request.rawBody, facebookAccount);
      });
      const sentAt = meta.sent.find((record) => record.messageId === providerMessageId)!.at;
      expect(receipts.map((event) => (event.type === 'receipt' ? [event.status, event.providerMessageId] : null))).toEqual([
        ['read', `watermark:${sentAt}`],
        ['delivered', providerMessageId],
      ]);
    });

    it('delivers unsigned or forged bodies when asked, which the adapter refuses', async () => {
      await meta.deliverRaw(PAGE_ID, { object: 'page', entry: [] }, { signature: null });
      expect(messenger.verifyWebhook(lastReceived(), facebookAccount).kind).toBe('refused');
      await meta.deliverRaw(PAGE_ID, { object: 'page', entry: [] }, { signature: 'sha256=' + '0'.repeat(64) });
      expect(messenger.verifyWebhook(lastReceived(), facebookAccount).kind).toBe('refused');
      await meta.deliverRaw(PAGE_ID, { object: 'page', entry: [] });
      expect(messenger.verifyWebhook(lastReceived(), facebookAccount).kind).toBe('verified');
    });
  });
});
