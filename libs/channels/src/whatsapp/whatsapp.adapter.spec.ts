/**
 * The WhatsApp adapter against the local Cloud API fake (test/fakes/whatsapp-cloud.ts): webhooks
 * the fake signs and pushes to a loopback receiver that answers with the adapter's verdict, and every
 * Graph call the adapter makes, checked on the fake's recorded wire format.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWhatsAppFake, type WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import { ChannelError, WebhookPayloadError, type ChannelAccount, type ChannelAdapter, type InboundEvent } from '../adapter';
import { DEFAULT_CHANNEL_ENDPOINTS } from '../endpoints';
import { createChannelRegistry } from '../registry';
import { createWhatsAppAdapter } from './whatsapp.adapter';

interface Received {
  method: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  verdict: string;
}

describe('WhatsApp Cloud API adapter ↔ fake', () => {
  let fake: WhatsAppFake;
  let adapter: ChannelAdapter;
  let account: ChannelAccount;
  let receiver: Server;
  let received: Received[];
  /** The receiver answers 500 this many times before verifying (Meta must retry). */
  let failReceiverTimes = 0;

  beforeAll(async () => {
    fake = await startWhatsAppFake({ retryDelayMs: 5 });
    adapter = createWhatsAppAdapter({
      metaGraphUrl: fake.url,
      metaGraphVersion: fake.graphVersion,
      telegramApiUrl: 'http://127.0.0.1:9',
      xApiUrl: 'http://127.0.0.1:9',
    });
    account = {
      id: 'account-1',
      kind: 'whatsapp',
      externalAccountId: fake.phoneNumberId,
      settings: { wabaId: fake.wabaId },
      secrets: { accessToken: fake.accessToken, appSecret: fake.appSecret },
      verifyToken: 'verify-3f9a1c',
    };
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://receiver');
        const webhook = {
          method: request.method as 'GET' | 'POST',
          query: Object.fromEntries(url.searchParams),
          headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, [value].flat()[0]])),
          rawBody: Buffer.concat(chunks),
        };
        if (failReceiverTimes > 0) {
          failReceiverTimes--;
          response.writeHead(500).end();
          return;
        }
        const verdict = adapter.verifyWebhook(webhook, account);
        received.push({ ...webhook, verdict: verdict.kind });
        if (verdict.kind === 'challenge') response.writeHead(200, { 'content-type': verdict.contentType }).end(verdict.body);
        else if (verdict.kind === 'refused') response.writeHead(webhook.method === 'GET' ? 403 : 401).end(verdict.reason);
        else response.writeHead(200).end('EVENT_RECEIVED');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    fake.setWebhookUrl(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/channels/whatsapp/account-1/webhook`);
  });

  afterAll(async () => {
    await fake.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  beforeEach(() => {
    received = [];
    failReceiverTimes = 0;
  });

  /** The events of the last verified delivery, parsed by the adapter. */
  const lastEvents = (): InboundEvent[] => {
    const last = received.filter((delivery) => delivery.verdict === 'verified').at(-1);
    if (!last) throw new Error('nothing verified');
    return adapter.parseWebhook(last.rawBody, account);
  };

  /** A fresh customer who has just written, so the free-text window is open. */
  const customerWhoWrote = async (phone: string) => {
    const { ids } = await fake.customerWrites({ from: phone, text: 'Hola' });
    return ids[0];
  };

  const sendError = async (promise: Promise<unknown>): Promise<ChannelError> => {
    const error = await promise.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ChannelError);
    return error as ChannelError;
  };

  it('is registered under whatsapp with its credentials and capabilities', () => {
    const registered = createChannelRegistry({ ...DEFAULT_CHANNEL_ENDPOINTS, metaGraphUrl: fake.url }).get('whatsapp');
    expect(registered?.kind).toBe('whatsapp');
    expect(registered?.credentials).toEqual({ secrets: ['accessToken', 'appSecret'], settings: ['wabaId', 'appId', 'testNumbers'] });
    expect(registered?.capabilities).toMatchObject({
      textLimit: 4096,
      replyWindowHours: 24,
      templates: true,
      receipts: { delivered: true, read: true },
    });
    expect(registered?.capabilities.attachments.image).toEqual({ maxBytes: 5 * 1024 * 1024, mimeTypes: ['image/jpeg', 'image/png'] });
  });

  describe('verifyWebhook', () => {
    it('answers Meta’s handshake with the challenge as text/plain', async () => {
      const result = await fake.handshake('verify-3f9a1c', { challenge: '1158201444' });
      expect(result).toMatchObject({ status: 200, body: '1158201444' });
    });

    it('refuses a handshake with the wrong token, another mode or a challenge that is not Meta’s', async () => {
      expect((await fake.handshake('verify-wrong')).status).toBe(403);
      const base = { method: 'GET' as const, headers: {}, rawBody: Buffer.alloc(0) };
      expect(
        adapter.verifyWebhook(
          { ...base, query: { 'hub.mode': 'unsubscribe', 'hub.verify_token': 'verify-3f9a1c', 'hub.challenge': '1' } },
          account,
        ).kind,
      ).toBe('refused');
      expect(
        adapter.verifyWebhook(
          { ...base, query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-3f9a1c', 'hub.challenge': '<script>' } },
          account,
        ).kind,
      ).toBe('refused');
      expect(adapter.verifyWebhook({ ...base, query: { 'hub.mode': 'subscribe', 'hub.challenge': '1' } }, account).kind).toBe('refused');
      expect(
        adapter.verifyWebhook(
          { ...base, query: { 'hub.mode': 'subscribe', 'hub.verify_token': '', 'hub.challenge': '1' } },
          { ...account, verifyToken: '' },
        ).kind,
      ).toBe('refused');
    });

    it('verifies Meta’s signature over the body as sent, non-ASCII escaped as \\uXXXX', async () => {
      const text = 'Canción ñandú 20 € 😀';
      const { deliveries } = await fake.customerWrites({ from: '34600000001', text });
      expect(deliveries.map((delivery) => delivery.status)).toEqual([200]);
      expect(received[0].verdict).toBe('verified');
      expect(received[0].rawBody.toString('utf8')).toContain('Canci\\u00f3n \\u00f1and\\u00fa 20 \\u20ac \\ud83d\\ude00');
      expect(lastEvents()).toEqual([
        expect.objectContaining({
          type: 'message',
          text,
          contact: { externalId: '34600000001', name: 'Cliente de prueba', username: undefined },
        }),
      ]);
    });

    it('refuses forged, missing and wrong-secret signatures and a tampered body, without throwing', async () => {
      const forged = await fake.customerWrites({ from: '34600000002', text: 'forged' }, { signature: 'forged' });
      const missing = await fake.customerWrites({ from: '34600000002', text: 'missing' }, { signature: 'missing' });
      expect(forged.deliveries.at(-1)?.status).toBe(401);
      expect(missing.deliveries.at(-1)?.status).toBe(401);
      expect(received.every((delivery) => delivery.verdict === 'refused')).toBe(true);

      const body = Buffer.from(fake.serialize({ object: 'whatsapp_business_account', entry: [] }));
      const signature = fake.sign(body.toString());
      const request = { method: 'POST' as const, query: {}, headers: { 'x-hub-signature-256': signature }, rawBody: body };
      expect(adapter.verifyWebhook(request, account).kind).toBe('verified');
      expect(adapter.verifyWebhook(request, { ...account, secrets: { ...account.secrets, appSecret: 'another-secret' } }).kind).toBe(
        'refused',
      );
      expect(adapter.verifyWebhook(request, { ...account, secrets: { accessToken: 'x' } }).kind).toBe('refused');
      expect(adapter.verifyWebhook({ ...request, rawBody: Buffer.from(body.toString().replace('[]', '[{}]')) }, account).kind).toBe(
        'refused',
      );
      expect(adapter.verifyWebhook({ ...request, headers: { 'x-hub-signature-256': 'sha256=' } }, account).kind).toBe('refused');
      expect(adapter.verifyWebhook({ ...request, headers: { 'x-hub-signature-256': signature.toUpperCase() } }, account).kind).toBe(
        'refused',
      );
    });

    it('is retried by the fake like Meta when the platform answers 5xx', async () => {
      failReceiverTimes = 2;
      const { deliveries } = await fake.customerWrites({ from: '34600000003', text: 'retry me' });
      expect(deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
      expect(lastEvents()).toHaveLength(1);
    });
  });

  describe('parseWebhook', () => {
    it('returns every message of a batch in payload order, across entries and changes', async () => {
      for (const layout of ['one-change', 'change-per-message', 'entry-per-message'] as const) {
        received = [];
        const { ids } = await fake.customerWrites(
          [
            { from: '34600000010', name: 'Ana', text: 'uno' },
            { from: '34600000011', name: 'Luis', text: 'dos' },
            { from: '34600000010', name: 'Ana', text: 'tres' },
          ],
          { layout },
        );
        const events = lastEvents();
        expect(
          events.map(
            (event) => event.type === 'message' && [event.providerMessageId, event.contact.externalId, event.contact.name, event.text],
          ),
        ).toEqual([
          [ids[0], '34600000010', 'Ana', 'uno'],
          [ids[1], '34600000011', 'Luis', 'dos'],
          [ids[2], '34600000010', 'Ana', 'tres'],
        ]);
      }
    });

    it('reads media (image with caption, document with file name, audio, video, sticker) as references to fetch', async () => {
      await fake.customerWrites([
        { from: '34600000020', media: { kind: 'image', bytes: Buffer.from('png'), mimeType: 'image/png', caption: 'mi foto' } },
        {
          from: '34600000020',
          media: { kind: 'document', bytes: Buffer.from('%PDF'), mimeType: 'application/pdf', fileName: 'factura.pdf' },
        },
        { from: '34600000020', media: { kind: 'audio', bytes: Buffer.from('ogg'), mimeType: 'audio/ogg; codecs=opus' } },
        { from: '34600000020', media: { kind: 'video', bytes: Buffer.from('mp4'), mimeType: 'video/mp4' } },
        { from: '34600000020', media: { kind: 'sticker', bytes: Buffer.from('webp'), mimeType: 'image/webp' } },
      ]);
      const events = lastEvents();
      expect(
        events.map(
          (event) => event.type === 'message' && [event.text, event.media?.map((media) => [media.kind, media.mimeType, media.fileName])],
        ),
      ).toEqual([
        ['mi foto', [['image', 'image/png', undefined]]],
        [undefined, [['document', 'application/pdf', 'factura.pdf']]],
        [undefined, [['audio', 'audio/ogg', undefined]]],
        [undefined, [['video', 'video/mp4', undefined]]],
        [undefined, [['image', 'image/webp', undefined]]],
      ]);
      expect(events.every((event) => event.type === 'message' && /^\d+$/.test(event.media![0].ref))).toBe(true);
    });

    it('turns statuses into receipts in payload order, out-of-order included, and failures with Meta’s reason', async () => {
      await customerWhoWrote('34600000030');
      const { providerMessageId } = await adapter.send(
        account,
        { to: '34600000030', text: 'Hola, ¿en qué ayudo?' },
        { idempotencyKey: 'm-30' },
      );
      await fake.pushReceipts(providerMessageId, { order: 'reversed', batch: true });
      expect(
        lastEvents().map((event) => event.type === 'receipt' && [event.providerMessageId, event.status, event.contactExternalId]),
      ).toEqual([
        [providerMessageId, 'read', '34600000030'],
        [providerMessageId, 'delivered', '34600000030'],
        [providerMessageId, 'sent', '34600000030'],
      ]);

      await fake.pushFailure(providerMessageId, {
        code: 131047,
        title: 'Re-engagement message',
        details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      });
      const [failed] = lastEvents();
      expect(failed).toMatchObject({ type: 'receipt', status: 'failed', error: { code: '131047' } });
      expect(failed.type === 'receipt' && failed.error?.message).toMatch(/24 hours.*template/);
    });

    it('turns the marketing preference webhook into opt-out and opt-in', async () => {
      await fake.customerPreference({ waId: '34600000040' }, 'stop');
      expect(lastEvents()).toEqual([{ type: 'opt-out', contactExternalId: '34600000040', at: expect.any(Date), reason: 'marketing' }]);
      await fake.customerPreference({ waId: '34600000040' }, 'resume');
      expect(lastEvents()).toEqual([{ type: 'opt-in', contactExternalId: '34600000040', at: expect.any(Date), reason: 'marketing' }]);
    });

    it('knows a user without a phone number by the business-scoped user id', async () => {
      await fake.customerWrites({ from: null, userId: 'US.13491208655302741918', username: 'maria.g', name: 'María', text: 'hola' });
      expect(lastEvents()).toEqual([
        expect.objectContaining({ contact: { externalId: 'US.13491208655302741918', name: 'María', username: 'maria.g' }, text: 'hola' }),
      ]);
    });

    it('ignores changes for another phone number of the business account', async () => {
      await fake.customerWrites({ from: '34600000050', text: 'para otro número' }, { phoneNumberId: '999999999999999' });
      expect(lastEvents()).toEqual([]);
    });

    it('skips kinds it has nothing to show for, renders locations and button replies as text', async () => {
      await fake.customerWrites([
        { from: '34600000060', raw: { type: 'reaction', reaction: { message_id: 'wamid.x', emoji: '👍' } } },
        { from: '34600000060', raw: { type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }] } },
        { from: '34600000060', location: { latitude: 40.4168, longitude: -3.7038, name: 'Oficina', address: 'Gran Vía 1' } },
        { from: '34600000060', raw: { type: 'button', button: { text: 'Sí, confirmo', payload: 'YES' } } },
        {
          from: '34600000060',
          raw: { type: 'interactive', interactive: { type: 'list_reply', list_reply: { id: 'l1', title: 'Soporte' } } },
        },
      ]);
      expect(lastEvents().map((event) => event.type === 'message' && event.text)).toEqual([
        'Oficina, Gran Vía 1\nhttps://maps.google.com/?q=40.4168,-3.7038',
        'Sí, confirmo',
        'Soporte',
      ]);
      const otherField = Buffer.from(
        JSON.stringify({
          object: 'whatsapp_business_account',
          entry: [
            {
              id: fake.wabaId,
              // Template status updates are read since issue 21 (templates.spec.ts); account updates still are not.
              changes: [{ field: 'account_update', value: { event: 'VERIFIED_ACCOUNT', phone_number: '15550783881' } }],
            },
          ],
        }),
      );
      expect(adapter.parseWebhook(otherField, account)).toEqual([]);
    });

    it('throws WebhookPayloadError (never TypeError) on bodies Meta does not send', () => {
      const change = (value: unknown) =>
        JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value }] }] });
      const metadata = { display_phone_number: '1', phone_number_id: fake.phoneNumberId };
      const malformed = [
        'not json',
        'null',
        '[]',
        JSON.stringify({ object: 'page', entry: [] }),
        JSON.stringify({ object: 'whatsapp_business_account' }),
        JSON.stringify({ object: 'whatsapp_business_account', entry: {} }),
        JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: 'x' }] }),
        change('value'),
        change({ messaging_product: 'whatsapp' }),
        change({ metadata, messages: {} }),
        change({ metadata, messages: [{ from: '1', timestamp: '1700000000', type: 'text', text: { body: 'no id' } }] }),
        change({ metadata, messages: [{ id: 'w', from: '1', timestamp: 'yesterday', type: 'text', text: { body: 'x' } }] }),
        change({ metadata, messages: [{ id: 'w', from: '1', timestamp: '1700000000', type: 'text', text: { body: 42 } }] }),
        change({ metadata, messages: [{ id: 'w', from: '1', timestamp: '1700000000', type: 'image', image: 'x' }] }),
        change({ metadata, messages: [{ id: 'w', timestamp: '1700000000', type: 'text', text: { body: 'nobody' } }] }),
        change({ metadata, statuses: [{ id: 'w', status: 'read' }] }),
        change({ metadata, contacts: [{ wa_id: 5 }] }),
      ];
      for (const body of malformed) {
        expect(() => adapter.parseWebhook(Buffer.from(body), account)).toThrow(WebhookPayloadError);
      }
    });

    it('survives hostile and huge verified input', () => {
      const metadata = { display_phone_number: '1', phone_number_id: fake.phoneNumberId };
      const messages = Array.from({ length: 5000 }, (_, index) => ({
        from: '34600000070',
        id: `wamid.${index}`,
        timestamp: '1700000000',
        type: 'text',
        text: { body: 'x'.repeat(200) },
      }));
      const huge = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [{ id: '1', changes: [{ field: 'messages', value: { metadata, messages } }] }],
      });
      // CPU time, not wall-clock: a loaded machine delays the test without making the parse slower.
      const started = process.cpuUsage();
      expect(adapter.parseWebhook(Buffer.from(huge), account)).toHaveLength(5000);
      const used = process.cpuUsage(started);
      expect((used.user + used.system) / 1000).toBeLessThan(2000);

      const polluted = `{"object":"whatsapp_business_account","__proto__":{"polluted":true},"entry":[{"id":"1","changes":[{"field":"messages","value":{"metadata":${JSON.stringify(
        metadata,
      )},"messages":[{"__proto__":{"type":"text"},"from":"1","id":"w","timestamp":"1700000000","type":"text","text":{"body":"ok"}}]}}]}]}`;
      expect(adapter.parseWebhook(Buffer.from(polluted), account)).toHaveLength(1);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();

      const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
      expect(() => adapter.parseWebhook(Buffer.from(deep), account)).toThrow(WebhookPayloadError);
      expect(() => adapter.parseWebhook(Buffer.from([0xff, 0xfe, 0x00]), account)).toThrow(WebhookPayloadError);
    });

    it('has no delivery id: Meta re-sends the same body', () => {
      expect(adapter.deliveryId(Buffer.from('{}'), account)).toBeNull();
    });
  });

  describe('send', () => {
    it('sends text with Meta’s envelope and answers the wamid', async () => {
      await customerWhoWrote('34600000100');
      const result = await adapter.send(account, { to: '34600000100', text: 'Buenos días 👋' }, { idempotencyKey: 'm-100' });
      const sent = fake.sent.at(-1)!;
      expect(result.providerMessageId).toBe(sent.id);
      expect(sent.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '34600000100',
        type: 'text',
        text: { preview_url: false, body: 'Buenos días 👋' },
      });
      expect(fake.requests.at(-1)).toMatchObject({
        method: 'POST',
        path: `/${fake.graphVersion}/${fake.phoneNumberId}/messages`,
        authorization: `Bearer ${fake.accessToken}`,
      });
    });

    it('uploads media (multipart) and sends it by media id, with caption and file name where WhatsApp takes them', async () => {
      await customerWhoWrote('34600000110');
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
      await adapter.send(
        account,
        { to: '34600000110', media: { kind: 'image', mimeType: 'image/png', fileName: 'captura.png', bytes: png, caption: 'Aquí está' } },
        { idempotencyKey: 'm-110' },
      );
      let sent = fake.sent.at(-1)!;
      expect(sent).toMatchObject({
        type: 'image',
        media: { caption: 'Aquí está', upload: { mimeType: 'image/png', fileName: 'captura.png' } },
      });
      expect(sent.media!.upload.bytes.equals(png)).toBe(true);
      expect(sent.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '34600000110',
        type: 'image',
        image: { id: sent.media!.id, caption: 'Aquí está' },
      });

      await adapter.send(
        account,
        {
          to: '34600000110',
          media: { kind: 'document', mimeType: 'application/pdf', fileName: 'factura.pdf', bytes: Buffer.from('%PDF-1.4') },
        },
        { idempotencyKey: 'm-111' },
      );
      sent = fake.sent.at(-1)!;
      expect(sent.body.document).toEqual({ id: sent.media!.id, filename: 'factura.pdf' });

      await adapter.send(
        account,
        {
          to: '34600000110',
          media: { kind: 'audio', mimeType: 'audio/ogg', fileName: 'nota.ogg', bytes: Buffer.from('OggS'), caption: 'ignored' },
        },
        { idempotencyKey: 'm-112' },
      );
      expect(fake.sent.at(-1)!.body.audio).toEqual({ id: fake.sent.at(-1)!.media!.id });
    });

    it('refuses locally what WhatsApp would refuse: long text, wrong media type or size, empty or mixed messages', async () => {
      const before = fake.requests.length;
      expect(
        (await sendError(adapter.send(account, { to: '34600000100', text: 'x'.repeat(4097) }, { idempotencyKey: 'a' }))).details,
      ).toMatchObject({
        code: 'text_too_long',
        retryable: false,
      });
      const gif = { kind: 'image' as const, mimeType: 'image/gif', fileName: 'a.gif', bytes: Buffer.from('GIF89a') };
      expect((await sendError(adapter.send(account, { to: '34600000100', media: gif }, { idempotencyKey: 'b' }))).details.code).toBe(
        'media_type',
      );
      const big = { kind: 'image' as const, mimeType: 'image/jpeg', fileName: 'a.jpg', bytes: Buffer.alloc(5 * 1024 * 1024 + 1) };
      expect((await sendError(adapter.send(account, { to: '34600000100', media: big }, { idempotencyKey: 'c' }))).details.code).toBe(
        'media_too_large',
      );
      expect((await sendError(adapter.send(account, { to: '34600000100', text: '   ' }, { idempotencyKey: 'd' }))).details.code).toBe(
        'invalid_message',
      );
      expect((await sendError(adapter.send(account, { to: '34600000100' }, { idempotencyKey: 'e' }))).details.code).toBe('invalid_message');
      expect(fake.requests.length).toBe(before);
    });

    it('sends to a business-scoped user id as recipient', async () => {
      await fake.customerWrites({ from: null, userId: 'US.555', text: 'hola' });
      await adapter.send(account, { to: 'US.555', text: 'Hola' }, { idempotencyKey: 'm-120' });
      expect(fake.sent.at(-1)).toMatchObject({ to: 'US.555', addressedBy: 'recipient' });
      expect(fake.sent.at(-1)!.body).not.toHaveProperty('to');
    });

    it('refuses free text after 24 h with a clear, permanent reason; a template still goes with its components', async () => {
      await customerWhoWrote('34600000130');
      fake.clock.advance(25 * 60 * 60 * 1000);
      try {
        const error = await sendError(adapter.send(account, { to: '34600000130', text: '¿Sigue ahí?' }, { idempotencyKey: 'm-130' }));
        expect(error.details).toMatchObject({ code: '131047', retryable: false, status: 400 });
        expect(error.message).toMatch(/More than 24 hours.*template/);

        await adapter.send(
          account,
          {
            to: '34600000130',
            template: { name: 'order_update', language: 'es', headerParameters: ['A-17'], bodyParameters: ['Ana', 'A-17'] },
          },
          { idempotencyKey: 'm-131' },
        );
        const sent = fake.sent.at(-1)!;
        expect(sent.template).toEqual({
          name: 'order_update',
          language: 'es',
          headerParameters: ['A-17'],
          bodyParameters: ['Ana', 'A-17'],
        });
        expect(sent.body.template).toEqual({
          name: 'order_update',
          language: { code: 'es' },
          components: [
            { type: 'header', parameters: [{ type: 'text', text: 'A-17' }] },
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Ana' },
                { type: 'text', text: 'A-17' },
              ],
            },
          ],
        });
        await adapter.send(
          account,
          { to: '34600000130', template: { name: 'hello_world', language: 'en_US', bodyParameters: [] } },
          { idempotencyKey: 'm-132' },
        );
        expect(fake.sent.at(-1)!.body.template).toEqual({ name: 'hello_world', language: { code: 'en_US' } });
      } finally {
        fake.clock.advance(-25 * 60 * 60 * 1000);
      }
    });

    it('classifies template errors: wrong parameter count (132000) and unknown template (132001) are permanent', async () => {
      const wrongCount = await sendError(
        adapter.send(
          account,
          { to: '34600000140', template: { name: 'order_update', language: 'es', headerParameters: ['1'], bodyParameters: ['Ana'] } },
          { idempotencyKey: 'x' },
        ),
      );
      expect(wrongCount.details).toMatchObject({ code: '132000', retryable: false });
      expect(wrongCount.message).toMatch(/number of localizable_params/);
      const unknown = await sendError(
        adapter.send(
          account,
          { to: '34600000140', template: { name: 'no_such', language: 'es', bodyParameters: [] } },
          { idempotencyKey: 'y' },
        ),
      );
      expect(unknown.details).toMatchObject({ code: '132001', retryable: false });
    });

    it('does not send marketing templates to a user who stopped marketing (131050)', async () => {
      await fake.customerPreference({ waId: '34600000150' }, 'stop');
      const error = await sendError(
        adapter.send(
          account,
          { to: '34600000150', template: { name: 'spring_offer', language: 'es', bodyParameters: ['20 %'] } },
          { idempotencyKey: 'z' },
        ),
      );
      expect(error.details).toMatchObject({ code: '131050', retryable: false });
    });

    it('classifies rate limits and outages as retryable with a wait, token errors as permanent', async () => {
      await customerWhoWrote('34600000160');
      const attempt = () => adapter.send(account, { to: '34600000160', text: 'hola' }, { idempotencyKey: 'm-160' });

      fake.failNext(1, 'throughput', { path: '/messages' });
      expect((await sendError(attempt())).details).toMatchObject({ code: '130429', retryable: true, retryAfterMs: 1000 });
      fake.failNext(1, 'pair-rate-limit', { path: '/messages' });
      expect((await sendError(attempt())).details).toMatchObject({ code: '131056', retryable: true, retryAfterMs: 6000 });
      fake.failNext(1, 'account-rate-limit', { path: '/messages' });
      // X-Business-Use-Case-Usage says 1 minute to regain access.
      expect((await sendError(attempt())).details).toMatchObject({ code: '80007', retryable: true, retryAfterMs: 60_000, status: 429 });
      fake.failNext(1, { status: 400, code: 4, message: '(#4) Application request limit reached', headers: { 'retry-after': '7' } });
      expect((await sendError(attempt())).details).toMatchObject({ code: '4', retryable: true, retryAfterMs: 7000 });
      fake.failNext(1, 'server-error');
      expect((await sendError(attempt())).details).toMatchObject({ code: '2', retryable: true, status: 503 });
      fake.failNext(1, 'token-expired');
      const token = await sendError(attempt());
      expect(token.details).toMatchObject({ code: '190', retryable: false, status: 401 });
      expect(token.message).toMatch(/access token/);

      const bare = { ...account, secrets: { ...account.secrets, accessToken: 'EAAG-wrong' } };
      expect((await sendError(adapter.send(bare, { to: '34600000160', text: 'hola' }, { idempotencyKey: 'm' }))).details).toMatchObject({
        code: '190',
        retryable: false,
      });

      const unreachable = createWhatsAppAdapter({
        metaGraphUrl: 'http://127.0.0.1:1',
        metaGraphVersion: 'v23.0',
        telegramApiUrl: '',
        xApiUrl: '',
      });
      expect((await sendError(unreachable.send(account, { to: '1', text: 'x' }, { idempotencyKey: 'n' }))).details).toMatchObject({
        code: 'network',
        retryable: true,
      });

      await attempt();
    });
  });

  describe('reply buttons (interactive messages) and taps', () => {
    const menu = [
      { payload: 'bot:person', title: 'Hablar con persona' },
      { payload: 'bot:topic:sales', title: 'Ventas' },
      { payload: 'bot:topic:support', title: 'Soporte' },
      { payload: 'bot:topic:billing', title: 'Facturación' },
    ];

    it('sends up to three as interactive reply buttons; a tap is button_reply with the id as the payload', async () => {
      await customerWhoWrote('34600000901');
      const { providerMessageId } = await adapter.send(
        account,
        { to: '34600000901', text: '¿Sobre qué?', buttons: menu.slice(0, 3) },
        { idempotencyKey: 'wa-b-1' },
      );
      const sent = fake.sent.find((message) => message.id === providerMessageId)!;
      expect(sent.body).toMatchObject({
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: '¿Sobre qué?' },
          action: {
            buttons: [
              { type: 'reply', reply: { id: 'bot:person', title: 'Hablar con persona' } },
              { type: 'reply', reply: { id: 'bot:topic:sales', title: 'Ventas' } },
              { type: 'reply', reply: { id: 'bot:topic:support', title: 'Soporte' } },
            ],
          },
        },
      });
      await fake.customerTaps(providerMessageId, 'bot:person');
      expect(lastEvents()).toEqual([
        expect.objectContaining({
          type: 'message',
          contact: expect.objectContaining({ externalId: '34600000901' }),
          text: 'Hablar con persona',
          button: { payload: 'bot:person' },
        }),
      ]);
    });

    it('sends more than three as a list (one section, rows of id and title, labels cut to 20); a tap is list_reply', async () => {
      await customerWhoWrote('34600000902');
      const long = [...menu, { payload: 'bot:topic:x', title: 'Una opción con un nombre muy largo' }];
      const { providerMessageId } = await adapter.send(
        account,
        { to: '34600000902', text: 'Menú', buttons: long },
        { idempotencyKey: 'wa-b-2' },
      );
      const sent = fake.sent.find((message) => message.id === providerMessageId)!;
      expect(sent.interactive).toEqual({
        kind: 'list',
        body: 'Menú',
        listButton: '☰',
        options: [
          { id: 'bot:person', title: 'Hablar con persona' },
          { id: 'bot:topic:sales', title: 'Ventas' },
          { id: 'bot:topic:support', title: 'Soporte' },
          { id: 'bot:topic:billing', title: 'Facturación' },
          { id: 'bot:topic:x', title: 'Una opción con un n…' },
        ],
      });
      await fake.customerTaps(providerMessageId, 'bot:topic:billing');
      expect(lastEvents()).toEqual([expect.objectContaining({ text: 'Facturación', button: { payload: 'bot:topic:billing' } })]);
    });

    it('refuses more than ten options, and the fake refuses what Meta refuses (a 21-character title, four reply buttons)', async () => {
      await customerWhoWrote('34600000903');
      const eleven = Array.from({ length: 11 }, (_, index) => ({ payload: `p${index}`, title: `Opción ${index}` }));
      expect(
        (await sendError(adapter.send(account, { to: '34600000903', text: 'x', buttons: eleven }, { idempotencyKey: 'wa-b-3' }))).details
          .code,
      ).toBe('too_many_buttons');
      const post = (interactive: unknown) =>
        fetch(`${fake.url}/${fake.graphVersion}/${fake.phoneNumberId}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.accessToken}` },
          body: JSON.stringify({ messaging_product: 'whatsapp', to: '34600000903', type: 'interactive', interactive }),
        });
      const reply = (title: string, id = title) => ({ type: 'reply', reply: { id, title } });
      const tooLong = await post({ type: 'button', body: { text: 'x' }, action: { buttons: [reply('x'.repeat(21))] } });
      expect(tooLong.status).toBe(400);
      expect(JSON.stringify(await tooLong.json())).toMatch(/title.*1-20/);
      const four = await post({ type: 'button', body: { text: 'x' }, action: { buttons: ['a', 'b', 'c', 'd'].map((id) => reply(id)) } });
      expect(four.status).toBe(400);
      const sameTitle = await post({ type: 'button', body: { text: 'x' }, action: { buttons: [reply('a', '1'), reply('a', '2')] } });
      expect(sameTitle.status).toBe(400);
    });
  });

  describe('markRead', () => {
    it('marks a customer message read, and fails permanently for an unknown id', async () => {
      const id = await customerWhoWrote('34600000200');
      await adapter.markRead(account, { contactExternalId: '34600000200', providerMessageId: id });
      expect(fake.reads.at(-1)?.messageId).toBe(id);
      expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: `/${fake.graphVersion}/${fake.phoneNumberId}/messages` });
      expect(
        (await sendError(adapter.markRead(account, { contactExternalId: '1', providerMessageId: 'wamid.unknown' }))).details,
      ).toMatchObject({
        code: '100',
        retryable: false,
      });
    });
  });

  describe('fetchMedia', () => {
    const jpeg = Buffer.concat([Buffer.from('ffd8ffe0', 'hex'), Buffer.alloc(2048, 7)]);

    it('resolves the media id and downloads it with the bearer token', async () => {
      const ref = fake.addCustomerMedia(jpeg, 'image/jpeg');
      const media = await adapter.fetchMedia(account, { kind: 'image', ref, fileName: 'foto.jpg' }, 1024 * 1024);
      expect(media.bytes.equals(jpeg)).toBe(true);
      expect(media).toMatchObject({ mimeType: 'image/jpeg', fileName: 'foto.jpg' });
      expect(fake.requests.filter((request) => request.path === `/${fake.graphVersion}/${ref}`)).toHaveLength(1);
    });

    it('refuses a medium over maxBytes', async () => {
      const ref = fake.addCustomerMedia(jpeg, 'image/jpeg');
      expect((await sendError(adapter.fetchMedia(account, { kind: 'image', ref }, 1000))).details).toMatchObject({
        code: 'media_too_large',
        retryable: false,
      });
    });

    it('asks a fresh URL once when the first has expired, and fails permanently when that one has too', async () => {
      const ref = fake.addCustomerMedia(jpeg, 'image/jpeg');
      fake.issueExpiredMediaUrls(1);
      expect((await adapter.fetchMedia(account, { kind: 'image', ref }, 1024 * 1024)).bytes.equals(jpeg)).toBe(true);
      expect(fake.requests.filter((request) => request.path === `/${fake.graphVersion}/${ref}`)).toHaveLength(2);

      fake.issueExpiredMediaUrls(2);
      expect((await sendError(adapter.fetchMedia(account, { kind: 'image', ref }, 1024 * 1024))).details).toMatchObject({
        status: 404,
        retryable: false,
      });
    });

    it('fails permanently for a media id WhatsApp does not know', async () => {
      expect((await sendError(adapter.fetchMedia(account, { kind: 'image', ref: '123456' }, 1024))).details).toMatchObject({
        code: '100',
        retryable: false,
      });
    });
  });

  describe('the fake itself (what other suites rely on)', () => {
    const graphCall = async (path: string, init: RequestInit & { token?: string | null } = {}) => {
      const { token = fake.accessToken, ...rest } = init;
      const response = await fetch(`${fake.url}${path}`, {
        ...rest,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          'content-type': 'application/json',
          ...(rest.headers as Record<string, string>),
        },
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: number; error_data?: { details?: string } } } };
    };
    const messagesPath = () => `/${fake.graphVersion}/${fake.phoneNumberId}/messages`;

    it('answers Graph errors for a wrong version, missing or wrong token and malformed sends', async () => {
      const text = (body: Record<string, unknown>) =>
        JSON.stringify({ messaging_product: 'whatsapp', to: '34600000300', type: 'text', ...body });
      expect((await graphCall(`/v19.0/${fake.phoneNumberId}/messages`, { method: 'POST', body: text({}) })).body.error?.code).toBe(2500);
      expect((await graphCall(messagesPath(), { method: 'POST', body: text({}), token: null })).body.error?.code).toBe(2500);
      expect(await graphCall(messagesPath(), { method: 'POST', body: text({}), token: 'nope' })).toMatchObject({
        status: 401,
        body: { error: { code: 190 } },
      });
      expect(
        (await graphCall(messagesPath(), { method: 'POST', body: JSON.stringify({ to: '1', type: 'text', text: { body: 'x' } }) })).body
          .error?.code,
      ).toBe(100);
      // Never wrote: outside the window.
      expect((await graphCall(messagesPath(), { method: 'POST', body: text({ text: { body: 'hola' } }) })).body.error?.code).toBe(131047);
      await customerWhoWrote('34600000300');
      expect((await graphCall(messagesPath(), { method: 'POST', body: text({ text: { body: 'x'.repeat(4097) } }) })).body.error?.code).toBe(
        100,
      );
      expect(
        (await graphCall(messagesPath(), { method: 'POST', body: text({ type: 'image', image: { id: '1' } }) })).body.error?.code,
      ).toBe(100);
      expect(
        (await graphCall(messagesPath(), { method: 'POST', body: text({ recipient_type: 'group', text: { body: 'x' } }) })).body.error
          ?.code,
      ).toBe(100);
      expect((await graphCall(messagesPath(), { method: 'POST', body: text({ text: { body: 'ok' } }) })).status).toBe(200);
    });

    it('checks uploads: multipart, messaging_product, Meta’s types and sizes', async () => {
      const upload = async (type: string, bytes: Buffer, product = 'whatsapp') => {
        const form = new FormData();
        form.append('messaging_product', product);
        form.append('type', type);
        form.append('file', new Blob([new Uint8Array(bytes)], { type }), 'f');
        const response = await fetch(`${fake.url}/v23.0/${fake.phoneNumberId}/media`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fake.accessToken}` },
          body: form,
        });
        return (await response.json()) as { id?: string; error?: { code: number } };
      };
      expect((await upload('image/gif', Buffer.from('GIF89a'))).error?.code).toBe(131053);
      expect((await upload('image/png', Buffer.alloc(5 * 1024 * 1024 + 1))).error?.code).toBe(131053);
      expect((await upload('image/png', Buffer.from('png'), 'messenger')).error?.code).toBe(100);
      expect((await upload('image/png', Buffer.from('png'))).id).toMatch(/^\d+$/);
    });

    it('re-delivers duplicates, to several URLs at once, and pushes receipts one by one in any order', async () => {
      const { deliveries } = await fake.customerWrites({ from: '34600000310', text: 'dup' }, { duplicates: 2 });
      expect(deliveries).toHaveLength(3);
      expect(new Set(deliveries.map((delivery) => delivery.body)).size).toBe(1);
      expect(received.map((delivery) => delivery.verdict)).toEqual(['verified', 'verified', 'verified']);

      received = [];
      const url = fake.webhookDeliveries.at(-1)!.url;
      await fake.customerWrites({ from: '34600000310', text: 'two processes' }, { to: [url, url] });
      expect(received).toHaveLength(2);

      const { providerMessageId } = await adapter.send(account, { to: '34600000310', text: 'ok' }, { idempotencyKey: 'm-310' });
      received = [];
      await fake.pushReceipts(providerMessageId, { order: 'shuffled' });
      const statuses = received.map((delivery) => {
        const [event] = adapter.parseWebhook(delivery.rawBody, account);
        return event.type === 'receipt' ? event.status : null;
      });
      expect([...statuses].sort()).toEqual(['delivered', 'read', 'sent']);
      expect(statuses).not.toEqual(['sent', 'delivered', 'read']);
    });
  });

  describe('testConnection and templates', () => {
    it('answers the phone number’s verified name, and refuses a bad token', async () => {
      expect(await adapter.testConnection(account)).toEqual({ name: `${fake.verifiedName} · ${fake.displayPhoneNumber}` });
      const bad = { ...account, secrets: { ...account.secrets, accessToken: 'EAAG-expired' } };
      expect((await sendError(adapter.testConnection(bad))).details).toMatchObject({ code: '190', retryable: false });
      const none = { ...account, secrets: { appSecret: 'x' } };
      expect((await sendError(adapter.testConnection(none))).details).toMatchObject({ code: 'missing_credentials' });
    });

    it('lists the approved templates with their header and body parameter counts', async () => {
      // order_update's header is 'Pedido {{1}}': the desk asks for it apart from the body's two.
      expect(await adapter.listTemplates!(account)).toEqual([
        {
          name: 'hello_world',
          language: 'en_US',
          status: 'APPROVED',
          category: 'UTILITY',
          body: 'Hello World',
          parameterCount: 0,
          headerText: null,
          headerParameterCount: 0,
          parameterFormat: 'POSITIONAL',
          headerParameterNames: [],
          bodyParameterNames: [],
          parameterExamples: {},
          headerFormat: null,
        },
        {
          name: 'order_update',
          language: 'es',
          status: 'APPROVED',
          category: 'UTILITY',
          body: 'Hola {{1}}, tu pedido {{2}} está listo.',
          parameterCount: 2,
          headerText: 'Pedido {{1}}',
          headerParameterCount: 1,
          parameterFormat: 'POSITIONAL',
          headerParameterNames: [],
          bodyParameterNames: [],
          parameterExamples: {},
          headerFormat: 'TEXT',
        },
        {
          name: 'spring_offer',
          language: 'es',
          status: 'APPROVED',
          category: 'MARKETING',
          body: '¡{{1}} de descuento esta semana!',
          parameterCount: 1,
          headerText: null,
          headerParameterCount: 0,
          parameterFormat: 'POSITIONAL',
          headerParameterNames: [],
          bodyParameterNames: [],
          parameterExamples: {},
          headerFormat: null,
        },
      ]);
      expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', path: `/${fake.graphVersion}/${fake.wabaId}/message_templates` });
      await expect(adapter.listTemplates!({ ...account, settings: {} })).rejects.toMatchObject({ details: { code: 'missing_settings' } });
    });

    it('offers templates with a media header with its format (the desk asks for a link or a file)', async () => {
      const withMedia = await startWhatsAppFake({
        templates: [
          { name: 'receipt', language: 'es', category: 'UTILITY', status: 'APPROVED', mediaHeader: 'IMAGE', body: 'Su recibo {{1}}' },
          { name: 'plain', language: 'es', category: 'UTILITY', status: 'APPROVED', body: 'Hola' },
        ],
      });
      try {
        const mediaAdapter = createWhatsAppAdapter({
          metaGraphUrl: withMedia.url,
          metaGraphVersion: withMedia.graphVersion,
          telegramApiUrl: '',
          xApiUrl: '',
        });
        const listed = await mediaAdapter.listTemplates!({
          ...account,
          settings: { wabaId: withMedia.wabaId },
          secrets: { accessToken: withMedia.accessToken },
        });
        expect(listed.map((template) => [template.name, template.headerFormat, template.parameterCount])).toEqual([
          ['receipt', 'IMAGE', 1],
          ['plain', null, 0],
        ]);
      } finally {
        await withMedia.close();
      }
    });

    it('follows Meta’s paging across pages', async () => {
      const many = await startWhatsAppFake({
        templates: Array.from({ length: 230 }, (_, index) => ({
          name: `t_${index}`,
          language: 'es',
          category: 'UTILITY' as const,
          status: 'APPROVED' as const,
          body: `Texto {{1}} ${index}`,
        })),
      });
      try {
        const pagedAdapter = createWhatsAppAdapter({
          metaGraphUrl: many.url,
          metaGraphVersion: many.graphVersion,
          telegramApiUrl: '',
          xApiUrl: '',
        });
        const templates = await pagedAdapter.listTemplates!({
          ...account,
          settings: { wabaId: many.wabaId },
          secrets: { accessToken: many.accessToken },
        });
        expect(templates).toHaveLength(230);
        expect(templates.at(-1)).toMatchObject({ name: 't_229', parameterCount: 1 });
        expect(many.requests).toHaveLength(3);
      } finally {
        await many.close();
      }
    });
  });
});
