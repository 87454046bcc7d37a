import { randomInt } from 'node:crypto';
import type { ChannelAccountView, ConversationView, MessageView, ReplyWindowView, TemplateView } from '@centralita/contracts';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import { startWhatsAppFake, type FakeTemplate, type WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import type { ChildWorker } from '../support/processes';
import { data, type Received, type StaffSocket } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';
import {
  TINY_PNG,
  accountConversations,
  accountCounts,
  agentCloses,
  agentOnline,
  agentSends,
  channelDesk,
  channelSuite,
  connectChannelAccount,
  conversationMessages,
  conversationStates,
  conversationUpdates,
  downloadAttachment,
  messageById,
  messageUpdates,
  startChannelApi,
  startChannelSendWorker,
  stopChild,
  uploadAttachment,
  webhookUrlOf,
  type AccountConversation,
  type ChannelDesk,
} from './support/channel-e2e';

/**
 * WhatsApp end to end: the customer (the WhatsApp Cloud API fake, test/fakes/whatsapp-cloud.ts)
 * writes through signed webhooks to two real API processes; the conversation queues on the
 * account's line and an agent gets it; the agent's replies go through the real worker's
 * channel-send processor to the fake, whose recorded requests are checked against Meta's wire
 * format; receipts, the 24-hour window with templates, rate limits and permanent errors.
 * Every count is filtered by this suite's account (other suites share the database).
 */
jest.setTimeout(60_000);
// Two API processes and the worker child (which compiles its sources) start together; on a loaded
// machine that alone can take most of a minute.
const STARTUP_TIMEOUT_MS = 120_000;
// Queue, worker and webhook round trips on a loaded machine: generous deadlines, quick polling.
const eventually = <T>(assertion: () => T | Promise<T>, timeoutMs = 20_000) => eventuallyWithin(assertion, { timeoutMs, intervalMs: 50 });

const HOUR = 3_600_000;
const TEMPLATES: FakeTemplate[] = [
  { name: 'hello_world', language: 'en_US', category: 'UTILITY', status: 'APPROVED', body: 'Hello World' },
  { name: 'appointment_reminder', language: 'es', category: 'UTILITY', status: 'APPROVED', body: 'Hola {{1}}, su cita es el {{2}}.' },
  { name: 'draft_notice', language: 'es', category: 'UTILITY', status: 'PENDING', body: 'Aviso {{1}}' },
  {
    name: 'order_ready_photo',
    language: 'es',
    category: 'UTILITY',
    status: 'APPROVED',
    mediaHeader: 'IMAGE',
    parameterFormat: 'NAMED',
    body: 'Hola {{first_name}}, su pedido {{order_id}} está listo.',
    examples: { first_name: 'Ana', order_id: 'A-17' },
  },
];

describe('WhatsApp Cloud API end to end (fake provider, real API, worker, PostgreSQL, Redis)', () => {
  let wa: WhatsAppFake;
  let a: TestApp;
  let b: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let account: ChannelAccountView;
  let desktop: { socket: StaffSocket; received: Received[] } | undefined;

  /** A phone number no other test of the run writes from. */
  const newCustomer = () => `3469${randomInt(1_000_000, 9_999_999)}`;

  beforeAll(async () => {
    // Random ids: the (kind, external account id) pair is unique across the run's database.
    wa = await startWhatsAppFake({
      phoneNumberId: String(randomInt(100_000_000_000, 999_999_999_999)),
      wabaId: String(randomInt(100_000_000_000, 999_999_999_999)),
      templates: TEMPLATES,
    });
    const suite = channelSuite('whatsapp', { META_GRAPH_URL: wa.url, META_GRAPH_VERSION: wa.graphVersion });
    // The worker child compiles its sources for a while: started alongside the two API processes.
    // Each assigned as it comes up, so afterAll closes whatever started if another one failed.
    await Promise.all([
      startChannelApi(suite).then((started) => (a = started)),
      startChannelApi(suite).then((started) => (b = started)),
      startChannelSendWorker(suite).then((started) => (worker = started)),
    ]);
    desk = await channelDesk(a);
    account = await connectChannelAccount(a, desk, {
      kind: 'whatsapp',
      name: 'Soporte WhatsApp',
      externalAccountId: wa.phoneNumberId,
      settings: { wabaId: wa.wabaId },
      secrets: { accessToken: wa.accessToken, appSecret: wa.appSecret },
    });
    wa.setWebhookUrl(webhookUrlOf(a, account));
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    desktop?.socket.close();
    await stopChild(worker);
    await Promise.all([a?.close(), b?.close()]);
    await wa?.close();
  });

  const agentToken = () => desk.agent.token;

  /** The conversation of one customer of this account, once it satisfies `check`. */
  const conversationOf = (customer: string, check: (conversation: AccountConversation) => void = () => undefined) =>
    eventually(async () => {
      const conversation = (await accountConversations(a.dataSource, account.id)).find((one) => one.contact === customer);
      expect(conversation).toBeDefined();
      check(conversation!);
      return conversation!;
    });

  /** The agent's desk: socket recorded and presence logged in, once (the first test opens it after a conversation queued). */
  const agentDesk = async () => (desktop ??= await agentOnline(a, desk));

  /** The agent, online, holds the customer's conversation. */
  const heldByAgent = async (customer: string) => {
    await agentDesk();
    return conversationOf(customer, (conversation) =>
      expect(conversation).toMatchObject({ status: 'Active', agent_id: desk.agent.userId }),
    );
  };

  const sentTo = (customer: string) => wa.sent.filter((message) => message.to === customer);
  const providerRequests = (edge: 'messages' | 'media') =>
    wa.requests.filter((request) => request.method === 'POST' && request.path === `/${wa.graphVersion}/${wa.phoneNumberId}/${edge}`);

  const statusOf = async (conversationId: string, messageId: string) => messageById(a, agentToken(), conversationId, messageId);

  it('takes the customer in, queues and routes the conversation, sends text and an image, applies receipts out of order (read first), keeps customer media, closes', async () => {
    const customer = newCustomer();
    const written = await wa.customerWrites({ from: customer, name: 'Ana Pérez', text: 'Hola, ¿me ayudan con mi pedido? ñ' });
    expect(written.deliveries.map((delivery) => delivery.status)).toEqual([200]);

    // Nobody is online yet: the conversation waits on the account's line.
    const queued = await conversationOf(customer, (conversation) =>
      expect(conversation).toMatchObject({ status: 'LiningUp', channel: 'whatsapp', attention_line_id: desk.lineId, agent_id: null }),
    );

    const online = await agentDesk();
    await eventually(() =>
      expect(conversationUpdates(online.received, queued.id).at(-1)).toMatchObject<Partial<ConversationView>>({
        status: 'Active',
        agentId: desk.agent.userId,
      }),
    );
    const inbound = await conversationMessages(a, agentToken(), queued.id);
    expect(inbound).toEqual([
      expect.objectContaining({ senderKind: 'customer', text: 'Hola, ¿me ayudan con mi pedido? ñ', deliveryStatus: null }),
    ]);
    // A WhatsApp conversation has no widget visitor: its message and its read mark go to staff rooms only.
    const pushedTo = async (event: string, match: string, value: string) =>
      (
        (await a.dataSource.query(
          `SELECT e->>'namespace' AS namespace FROM outbox o, jsonb_array_elements(o.payload->'emits') e
           WHERE o.topic = 'socket' AND e->>'event' = $1 AND e->'data'->>$2 = $3`,
          [event, match, value],
        )) as { namespace: string }[]
      ).map((row) => row.namespace);
    expect(await pushedTo('message.created', 'id', inbound[0]!.id)).toEqual(['staff']);
    expect(
      data<{ read: number }>(
        await a
          .http()
          .post(`/api/agent/conversations/${queued.id}/read`)
          .set(bearer(agentToken()))
          .send({ upToSequence: inbound[0]!.sequence }),
      ),
    ).toEqual({ read: 1 });
    expect(await pushedTo('message.read', 'conversationId', queued.id)).toEqual(['staff']);

    // Text: stored pending, sent by the worker as Cloud API text.
    const text = await agentSends(a, agentToken(), queued.id, 'Claro, Ana. ¿Cuál es el número?');
    expect(text).toMatchObject({ senderKind: 'agent', deliveryStatus: 'pending', deliveryError: null });
    await eventually(() => expect(sentTo(customer)).toHaveLength(1));
    expect(sentTo(customer)[0]!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: customer,
      type: 'text',
      text: { preview_url: false, body: 'Claro, Ana. ¿Cuál es el número?' },
    });
    expect(providerRequests('messages').at(-1)!.authorization).toBe(`Bearer ${wa.accessToken}`);
    await eventually(async () => expect((await statusOf(queued.id, text.id)).deliveryStatus).toBe('sent'));

    // Image: the upload endpoint, then the worker uploads the medium to /media and sends it by id.
    const uploadsBefore = wa.uploads.length;
    const image = data<MessageView>(
      await uploadAttachment(a, agentToken(), queued.id, {
        bytes: TINY_PNG,
        fileName: 'factura.png',
        mimeType: 'image/png',
        caption: 'Su factura',
      }),
    );
    expect(image).toMatchObject({ text: 'Su factura', deliveryStatus: 'pending', attachments: [{ kind: 'image', mimeType: 'image/png' }] });
    await eventually(() => expect(sentTo(customer)).toHaveLength(2));
    const upload = wa.uploads[uploadsBefore]!;
    expect(wa.uploads).toHaveLength(uploadsBefore + 1);
    expect(upload).toMatchObject({ mimeType: 'image/png', fileName: 'factura.png' });
    expect(Buffer.compare(upload.bytes, TINY_PNG)).toBe(0);
    const sentImage = sentTo(customer)[1]!;
    expect(sentImage.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: customer,
      type: 'image',
      image: { id: upload.id, caption: 'Su factura' },
    });
    // The medium went up before the message naming it, both with the account's token.
    const uploadCall = wa.requests.map((request) => request.path).lastIndexOf(`/${wa.graphVersion}/${wa.phoneNumberId}/media`);
    const imageCall = wa.requests.lastIndexOf(providerRequests('messages').at(-1)!);
    expect(uploadCall).toBeGreaterThanOrEqual(0);
    expect(uploadCall).toBeLessThan(imageCall);
    expect(wa.requests[uploadCall]!.authorization).toBe(`Bearer ${wa.accessToken}`);
    await eventually(async () => expect((await statusOf(queued.id, image.id)).deliveryStatus).toBe('sent'));

    // Receipts out of order (read before delivered before sent): both end read, on REST and the desk's socket.
    const receipts = await wa.pushReceipts([sentTo(customer)[0]!.id, sentImage.id], { order: 'reversed' });
    expect(new Set(receipts.map((delivery) => delivery.status))).toEqual(new Set([200]));
    await eventually(async () => {
      expect((await statusOf(queued.id, text.id)).deliveryStatus).toBe('read');
      expect((await statusOf(queued.id, image.id)).deliveryStatus).toBe('read');
    });
    await eventually(() => {
      for (const id of [text.id, image.id]) {
        expect(messageUpdates(online.received, id).map((update) => update.deliveryStatus)).toContain('read');
      }
    });
    // The late 'delivered' and 'sent' never moved them back.
    await eventually(async () =>
      expect(
        (
          (await a.dataSource.query(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [
            account.id,
          ])) as { n: number }[]
        )[0]!.n,
      ).toBe(0),
    );
    expect((await statusOf(queued.id, text.id)).deliveryStatus).toBe('read');
    expect((await statusOf(queued.id, image.id)).deliveryStatus).toBe('read');

    // The customer's photo: fetched from the provider at once, stored, downloadable by staff.
    const photo = Buffer.concat([TINY_PNG, Buffer.from('customer photo')]);
    await wa.customerWrites({
      from: customer,
      media: { kind: 'image', bytes: photo, mimeType: 'image/png', caption: 'Así llegó la caja' },
    });
    const withPhoto = await eventually(async () => {
      const message = (await conversationMessages(a, agentToken(), queued.id)).find(
        (one) => one.senderKind === 'customer' && one.attachments.length > 0,
      );
      expect(message).toBeDefined();
      return message!;
    });
    expect(withPhoto).toMatchObject({
      text: 'Así llegó la caja',
      attachments: [{ kind: 'image', mimeType: 'image/png', size: photo.length }],
    });
    const downloaded = await downloadAttachment(a, agentToken(), withPhoto.attachments[0]!.url);
    expect(downloaded.status).toBe(200);
    expect(Buffer.compare(downloaded.body as Buffer, photo)).toBe(0);

    const closed = await agentCloses(a, agentToken(), queued.id);
    expect(closed.status).not.toBe('Active');
    await conversationOf(customer, (conversation) => expect(conversation.status).toBe(closed.status));
    const states = await conversationStates(a.dataSource, queued.id);
    // Queued on the line, handed to the agent, closed: in that order in the machine's log.
    expect(states).toContain('LiningUp');
    expect(states[states.indexOf('LiningUp') + 1]).toBe('Active');
    expect(states.at(-1)).toBe(closed.status);
  });

  it('stores a delivery once when it reaches two API processes at once and again 5 times; refuses forged and unsigned ones (401) storing nothing', async () => {
    const customer = newCustomer();
    const before = await accountCounts(a.dataSource, account.id);
    const { ids, deliveries } = await wa.customerWrites(
      { from: customer, text: 'Mensaje repetido' },
      { to: [webhookUrlOf(a, account), webhookUrlOf(b, account)], duplicates: 5 },
    );
    expect(deliveries).toHaveLength(12);
    expect(new Set(deliveries.map((delivery) => delivery.status))).toEqual(new Set([200]));
    await eventually(async () => {
      const conversations = (await accountConversations(a.dataSource, account.id)).filter((one) => one.contact === customer);
      expect(conversations).toHaveLength(1);
      const stored = (await a.dataSource.query(`SELECT text FROM messages WHERE channel_account_id = $1 AND external_id = $2`, [
        account.id,
        ids[0],
      ])) as { text: string }[];
      expect(stored).toEqual([{ text: 'Mensaje repetido' }]);
      expect(await accountCounts(a.dataSource, account.id)).toEqual({
        events: before.events + 1,
        messages: before.messages + 1,
        conversations: before.conversations + 1,
      });
    });

    const settled = await accountCounts(a.dataSource, account.id);
    for (const signature of ['forged', 'missing'] as const) {
      const refused = await wa.customerWrites({ from: newCustomer(), text: `firma ${signature}` }, { signature });
      // Meta retries what is refused: every attempt answered 401.
      expect(refused.deliveries.length).toBeGreaterThan(1);
      expect(new Set(refused.deliveries.map((delivery) => delivery.status))).toEqual(new Set([401]));
    }
    expect(await accountCounts(a.dataSource, account.id)).toEqual(settled);
  });

  it('after 24 hours: the window is closed, free text is refused (409) and not stored, a template goes with its components', async () => {
    const customer = newCustomer();
    await wa.customerWrites({ from: customer, text: 'Hola, escribí ayer', at: new Date(Date.now() - 25 * HOUR) });
    const conversation = await heldByAgent(customer);

    const window = data<ReplyWindowView>(
      await a.http().get(`/api/conversations/${conversation.id}/reply-window`).set(bearer(agentToken())),
    );
    expect(window).toMatchObject({ conversationId: conversation.id, channel: 'whatsapp', open: false, templates: true, optedOut: false });

    const refused = await a
      .http()
      .post(`/api/agent/conversations/${conversation.id}/messages`)
      .set(bearer(agentToken()))
      .send({ text: '¿Sigue ahí?' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ errorCode: 'reply_window_closed' });
    expect(refused.body.errorMessage).toBe("The customer's reply window has closed: only an approved template can be sent now.");
    expect((await conversationMessages(a, agentToken(), conversation.id)).map((message) => message.senderKind)).toEqual(['customer']);

    // The provider agrees: free text to this customer now is Meta's 131047.
    const direct = await fetch(`${wa.url}/${wa.graphVersion}/${wa.phoneNumberId}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${wa.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: customer,
        type: 'text',
        text: { body: 'x' },
      }),
    });
    expect(direct.status).toBe(400);
    expect(((await direct.json()) as { error: { code: number } }).error.code).toBe(131047);

    // The approved templates, read from the provider; the pending one is not offered.
    const templates = data<TemplateView[]>(await a.http().get(`/api/conversations/${conversation.id}/templates`).set(bearer(agentToken())));
    expect(templates.map((template) => template.name)).toEqual(expect.arrayContaining(['hello_world', 'appointment_reminder']));
    expect(templates.map((template) => template.name)).not.toContain('draft_notice');

    const sent = data<MessageView>(
      await a
        .http()
        .post(`/api/conversations/${conversation.id}/template-messages`)
        .set(bearer(agentToken()))
        .send({ name: 'appointment_reminder', language: 'es', bodyParameters: ['Ana', 'lunes 3'] }),
    );
    expect(sent).toMatchObject({ text: 'Hola Ana, su cita es el lunes 3.', deliveryStatus: 'pending' });
    await eventually(() => expect(sentTo(customer)).toHaveLength(1));
    expect(sentTo(customer)[0]).toMatchObject({
      type: 'template',
      template: { name: 'appointment_reminder', language: 'es', headerParameters: [], bodyParameters: ['Ana', 'lunes 3'] },
    });
    expect(sentTo(customer)[0]!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: customer,
      type: 'template',
      template: {
        name: 'appointment_reminder',
        language: { code: 'es' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'text', text: 'lunes 3' },
            ],
          },
        ],
      },
    });
    await eventually(async () => expect((await statusOf(conversation.id, sent.id)).deliveryStatus).toBe('sent'));
    await agentCloses(a, agentToken(), conversation.id);
  });

  it('after 24 hours: a NAMED template with an image header goes by link or by uploaded file; bad input is a 400 naming the field', async () => {
    const customer = newCustomer();
    await wa.customerWrites({ from: customer, text: 'Hola, ¿está mi pedido?', at: new Date(Date.now() - 25 * HOUR) });
    const conversation = await heldByAgent(customer);

    // Offered with its names, Meta's examples and its header's format.
    const templates = data<TemplateView[]>(await a.http().get(`/api/conversations/${conversation.id}/templates`).set(bearer(agentToken())));
    expect(templates.find((template) => template.name === 'order_ready_photo')).toMatchObject({
      parameterFormat: 'NAMED',
      headerFormat: 'IMAGE',
      headerText: null,
      parameterCount: 2,
      headerParameterCount: 0,
      bodyParameterNames: ['first_name', 'order_id'],
      parameterExamples: { first_name: 'Ana', order_id: 'A-17' },
    });
    expect(templates.find((template) => template.name === 'appointment_reminder')).toMatchObject({
      parameterFormat: 'POSITIONAL',
      headerFormat: null,
    });

    const post = (body: Record<string, unknown>) =>
      a.http().post(`/api/conversations/${conversation.id}/template-messages`).set(bearer(agentToken())).send(body);
    const named = { name: 'order_ready_photo', language: 'es', bodyParameters: ['Ana', 'B-42'] };
    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [named, 'headerMedia', /headerMedia is required/],
      [{ ...named, headerMedia: { link: 'http://cdn.example.com/pedido.png' } }, 'headerMedia', /https URL/],
      [{ ...named, headerMedia: { link: 'https://cdn.example.com/pedido.pdf' } }, 'headerMedia', /jpg, jpeg, png/],
      [{ ...named, headerMedia: { id: '123' } }, 'headerMedia', /link/],
      [
        { ...named, headerMedia: { link: 'https://cdn.example.com/pedido.png' }, bodyParameters: ['Ana'] },
        'bodyParameters',
        /first_name, order_id/,
      ],
      [
        {
          name: 'appointment_reminder',
          language: 'es',
          bodyParameters: ['Ana', 'lunes'],
          headerMedia: { link: 'https://x.example/a.png' },
        },
        'headerMedia',
        /only for templates/,
      ],
    ];
    for (const [body, field, message] of refusals) {
      const refused = await post(body);
      expect(refused.status).toBe(400);
      expect(refused.body.data.fields[field]?.[0]).toMatch(message);
    }
    expect(sentTo(customer)).toHaveLength(0);

    // By link: every body value carries its parameter_name; the header is the image by link.
    const link = 'https://cdn.example.com/pedidos/B-42.png';
    const sent = data<MessageView>(await post({ ...named, headerMedia: { link } }));
    expect(sent).toMatchObject({ text: 'Hola Ana, su pedido B-42 está listo.', deliveryStatus: 'pending' });
    await eventually(() => expect(sentTo(customer)).toHaveLength(1));
    expect(sentTo(customer)[0]!.template).toMatchObject({
      name: 'order_ready_photo',
      namedParameters: { first_name: 'Ana', order_id: 'B-42' },
      headerMedia: { type: 'image', link },
    });
    expect((sentTo(customer)[0]!.body.template as { components: unknown }).components).toEqual([
      { type: 'header', parameters: [{ type: 'image', image: { link } }] },
      {
        type: 'body',
        parameters: [
          { type: 'text', parameter_name: 'first_name', text: 'Ana' },
          { type: 'text', parameter_name: 'order_id', text: 'B-42' },
        ],
      },
    ]);
    await eventually(async () => expect((await statusOf(conversation.id, sent.id)).deliveryStatus).toBe('sent'));

    // By upload: the file is checked against the header's types, kept as the message's attachment,
    // uploaded to Meta by the worker and sent by its media id.
    const upload = (file: { bytes: Buffer; name: string; type: string }, template: Record<string, unknown>) =>
      a
        .http()
        .post(`/api/conversations/${conversation.id}/template-messages/media`)
        .set(bearer(agentToken()))
        .field('template', JSON.stringify(template))
        .attach('file', file.bytes, { filename: file.name, contentType: file.type });
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    const wrongType = await upload({ bytes: pdf, name: 'pedido.pdf', type: 'application/pdf' }, named);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errorMessage).toMatch(/image\/jpeg or image\/png/);
    const noTemplate = await upload({ bytes: TINY_PNG, name: 'pedido.png', type: 'image/png' }, { ...named, bodyParameters: 'Ana' });
    expect(noTemplate.status).toBe(400);
    expect(noTemplate.body.data.fields).toHaveProperty('bodyParameters');
    const noMediaHeader = await upload(
      { bytes: TINY_PNG, name: 'pedido.png', type: 'image/png' },
      { name: 'appointment_reminder', language: 'es', bodyParameters: ['Ana', 'lunes'] },
    );
    expect(noMediaHeader.status).toBe(400);
    expect(noMediaHeader.body.data.fields).toHaveProperty('file');

    const uploadsBefore = providerRequests('media').length;
    const withFile = data<MessageView>(
      await upload({ bytes: TINY_PNG, name: 'pedido.png', type: 'image/png' }, { ...named, bodyParameters: ['Ana', 'C-7'] }),
    );
    expect(withFile).toMatchObject({
      text: 'Hola Ana, su pedido C-7 está listo.',
      deliveryStatus: 'pending',
      attachments: [{ kind: 'image', mimeType: 'image/png', fileName: 'pedido.png' }],
    });
    await eventually(() => expect(sentTo(customer)).toHaveLength(2));
    expect(providerRequests('media').length - uploadsBefore).toBe(1);
    const byId = sentTo(customer)[1]!.template!;
    expect(byId).toMatchObject({ namedParameters: { first_name: 'Ana', order_id: 'C-7' }, headerMedia: { type: 'image' } });
    const uploaded = wa.uploads.find((one) => one.id === byId.headerMedia!.id);
    expect(uploaded).toMatchObject({ mimeType: 'image/png', fileName: 'pedido.png' });
    expect(Buffer.compare(uploaded!.bytes, TINY_PNG)).toBe(0);
    await eventually(async () => expect((await statusOf(conversation.id, withFile.id)).deliveryStatus).toBe('sent'));
    await agentCloses(a, agentToken(), conversation.id);
  });

  it('retries a rate-limited send (130429) until it is sent, and fails a permanent error (190) with the provider’s reason', async () => {
    const customer = newCustomer();
    await wa.customerWrites({ from: customer, text: 'Necesito ayuda urgente' });
    const conversation = await heldByAgent(customer);

    const attemptsBefore = providerRequests('messages').length;
    wa.failNext(1, 'throughput', { path: '/messages' });
    const limited = await agentSends(a, agentToken(), conversation.id, 'Un momento, por favor');
    await eventually(async () => expect((await statusOf(conversation.id, limited.id)).deliveryStatus).toBe('sent'));
    // Refused once with 130429, then accepted: two calls, one message at the customer.
    expect(providerRequests('messages').length - attemptsBefore).toBe(2);
    expect(sentTo(customer).map((message) => message.text)).toEqual(['Un momento, por favor']);
    expect((await statusOf(conversation.id, limited.id)).deliveryError).toBeNull();
    await wa.pushReceipts(sentTo(customer)[0]!.id, { statuses: ['delivered'] });
    await eventually(async () => expect((await statusOf(conversation.id, limited.id)).deliveryStatus).toBe('delivered'));

    wa.failNext(1, 'token-expired', { path: '/messages' });
    const refused = await agentSends(a, agentToken(), conversation.id, 'Esto no llegará');
    const failed = await eventually(async () => {
      const view = await statusOf(conversation.id, refused.id);
      expect(view.deliveryStatus).toBe('failed');
      return view;
    });
    expect(failed.deliveryError).toMatch(/Error validating access token: Session has expired/);
    expect(sentTo(customer)).toHaveLength(1);
    await agentCloses(a, agentToken(), conversation.id);
  });

  it('ends read when the phone’s statuses (read, delivered, sent) reach the platform before Meta answers the send', async () => {
    const customer = newCustomer();
    await wa.customerWrites({ from: customer, text: 'Hola, ¿me leen?' });
    const conversation = await heldByAgent(customer);
    // Each status its own webhook, answered 200 (stored) before the worker gets the message's id:
    // processed before or after the worker stores it, the message ends read and nothing is left kept.
    wa.setAutoSentStatus(true, { beforeAnswer: true, statuses: ['read', 'delivered', 'sent'] });
    try {
      const reply = await agentSends(a, agentToken(), conversation.id, 'Sí, le leemos');
      await eventually(async () => expect((await statusOf(conversation.id, reply.id)).deliveryStatus).toBe('read'));
      const webhooks = wa.webhookDeliveries.filter((delivery) => delivery.body.includes(sentTo(customer)[0]!.id));
      expect(webhooks.map((delivery) => delivery.status)).toEqual([200, 200, 200]);
      await eventually(async () =>
        expect(
          (
            (await a.dataSource.query(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND processed_at IS NULL`, [
              account.id,
            ])) as { n: number }[]
          )[0]!.n,
        ).toBe(0),
      );
      expect((await statusOf(conversation.id, reply.id)).deliveryStatus).toBe('read');
      expect(
        await a.dataSource.query(`SELECT status FROM channel_pending_receipts WHERE account_id = $1 AND provider_message_id = $2`, [
          account.id,
          sentTo(customer)[0]!.id,
        ]),
      ).toEqual([]);
    } finally {
      wa.setAutoSentStatus(false);
    }
    await agentCloses(a, agentToken(), conversation.id);
  });
});
